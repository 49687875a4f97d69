package io.shardingjob.core.registry;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures how far this instance's wall clock is from ZooKeeper's, for {@link RegistryCenter#clockSkew()}: on every
 * connection, and again when asked more than a minute after the last measurement, it writes the node {@code /.clock}
 * under the namespace (empty data, watched by nobody: one write per instance at most once a minute while someone
 * looks, such as a health check) and compares the {@code mtime} the server gave it with the local midpoint of the
 * round trip. Job names start with a letter or a digit, so {@code /.clock} can be no job's root. Every request is sent
 * in the background: a connection-state callback never waits for ZooKeeper.
 */
final class ClockProbe implements ConnectionStateListener {

    /** Under {@link RegistryCenter}'s name, as before the probe had a class of its own: log settings apply. */
    private static final Logger log = LoggerFactory.getLogger(RegistryCenter.class);

    /** The node whose writes show ZooKeeper's clock, relative to the namespace. */
    private static final String CLOCK_NODE = "/.clock";

    /** How old the last measurement may be before asking for the skew measures it again. */
    private static final Duration REMEASURE_AFTER = Duration.ofMinutes(1);

    /** Rooted at the namespace. */
    private final CuratorFramework client;

    private final Duration maxClockSkew;
    private final AtomicReference<ClockSkew> last = new AtomicReference<>();

    /** {@link System#nanoTime()} when the last measurement was sent. */
    private final AtomicLong lastMeasurement = new AtomicLong();

    private volatile boolean stopped;

    ClockProbe(CuratorFramework client, Duration maxClockSkew) {
        this.client = client;
        this.maxClockSkew = maxClockSkew;
    }

    /** Measures now, and again on every connection until stopped. */
    void start() {
        client.getConnectionStateListenable().addListener(this);
        measure(true);
    }

    void stop() {
        stopped = true;
        client.getConnectionStateListenable().removeListener(this);
    }

    /** As {@link RegistryCenter#clockSkew()} says; a new measurement is asked for only while connected. */
    Optional<ClockSkew> skew() {
        if (client.getZookeeperClient().isConnected()) {
            measure(false);
        }
        return Optional.ofNullable(last.get());
    }

    @Override
    public void stateChanged(CuratorFramework framework, ConnectionState newState) {
        if (newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED) {
            measure(true);
        }
    }

    /** Sends a measurement unless one was sent less than a minute ago; {@code now} sends one anyway. */
    private void measure(boolean now) {
        long previous = lastMeasurement.get();
        long sending = System.nanoTime();
        if (!now && previous != 0 && sending - previous < REMEASURE_AFTER.toNanos()) {
            return;
        }
        if (!stopped && lastMeasurement.compareAndSet(previous, sending == 0 ? 1 : sending)) {
            probe(true);
        }
    }

    /** Writes the clock node in the background; a missing node is created once and written again. */
    private void probe(boolean createIfMissing) {
        long sentAt = System.currentTimeMillis();
        long sentNanos = System.nanoTime();
        try {
            client.setData()
                    .inBackground((framework, event) -> probed(event, sentAt, sentNanos, createIfMissing))
                    .forPath(CLOCK_NODE, new byte[0]);
        } catch (Exception ex) {
            log.debug("Could not measure the clock skew: {}", ex.toString());
        }
    }

    private void probed(CuratorEvent event, long sentAt, long sentNanos, boolean createIfMissing) {
        long roundTrip = System.nanoTime() - sentNanos;
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code == KeeperException.Code.OK && event.getStat() != null) {
            recorded(ClockSkew.measure(sentAt, roundTrip, event.getStat().getMtime(), maxClockSkew));
        } else if (code == KeeperException.Code.NONODE && createIfMissing) {
            try {
                client.create()
                        .inBackground((framework, created) -> {
                            KeeperException.Code result = KeeperException.Code.get(created.getResultCode());
                            if (result == KeeperException.Code.OK || result == KeeperException.Code.NODEEXISTS) {
                                probe(false);
                            }
                        })
                        .forPath(CLOCK_NODE, new byte[0]);
            } catch (Exception ex) {
                log.debug("Could not create {} to measure the clock skew: {}", CLOCK_NODE, ex.toString());
            }
        } else {
            log.debug("Measuring the clock skew failed with {}", code);
        }
    }

    private void recorded(ClockSkew measured) {
        ClockSkew previous = last.getAndSet(measured);
        boolean was = previous != null && previous.exceeded();
        if (measured.exceeded() && !was) {
            log.warn(
                    "This instance's clock is {}, more than the {} ms tolerated (sharding.zookeeper.max-clock-skew):"
                            + " its fires start {} and the times it records disagree with the other instances'."
                            + " Fix its time synchronisation (NTP).",
                    measured.describe(),
                    measured.bound().toMillis(),
                    measured.skew().isNegative() ? "late" : "early");
        } else if (was && !measured.exceeded()) {
            log.info(
                    "This instance's clock is back within {} ms of ZooKeeper's: {} ms (± {} ms)",
                    measured.bound().toMillis(),
                    measured.skew().toMillis(),
                    measured.uncertainty().toMillis());
        }
    }
}
