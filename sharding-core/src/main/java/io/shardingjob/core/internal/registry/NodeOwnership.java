package io.shardingjob.core.internal.registry;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whose this instance's node is, as {@link InstanceRegistration} last learnt it: our current session's (registered),
 * a session this client had and gave up (a leftover of ours), or another one's (a holder, waited out); and the start's
 * wait for the first time it is ours. Each change is logged here, once. Written from ZooKeeper's event thread, read by
 * the start and the close on theirs.
 */
final class NodeOwnership {

    /** Under {@link InstanceRegistration}'s name, as before this state had a class of its own: log settings apply. */
    private static final Logger log = LoggerFactory.getLogger(InstanceRegistration.class);

    private final String path;
    private final String instanceId;
    private final String jobName;
    private final Runnable onRegistered;

    /** The session that owns our node, as this client last learnt; 0 while not registered. */
    private final AtomicLong owner = new AtomicLong();

    /** Sessions this client had and lost: a node one of them still owns is a leftover of ours, not another's. */
    private final Set<Long> givenUp = ConcurrentHashMap.newKeySet();

    /** The other session last found holding our path; 0 when none was. */
    private final AtomicLong holder = new AtomicLong();

    private final CountDownLatch firstRegistration = new CountDownLatch(1);

    NodeOwnership(String path, String instanceId, String jobName, Runnable onRegistered) {
        this.path = path;
        this.instanceId = instanceId;
        this.jobName = jobName;
        this.onRegistered = onRegistered;
    }

    long owner() {
        return owner.get();
    }

    /** Forgets the owner, for a close: the session that owned our node, or 0. */
    long forget() {
        return owner.getAndSet(0);
    }

    boolean gaveUp(long session) {
        return givenUp.contains(session);
    }

    /** Our node is {@code session}'s, which is ours; a new owner is told to {@code onRegistered}. */
    void registered(long session) {
        holder.set(0);
        if (owner.getAndSet(session) != session) {
            log.info(
                    "Job {}: instance {} registered under session 0x{}",
                    jobName,
                    instanceId,
                    Long.toHexString(session));
            firstRegistration.countDown();
            onRegistered.run();
        }
    }

    /** Curator gave the session up for good (its next connection is a new session): a node it owns is a leftover. */
    void sessionLost() {
        long was = owner.get();
        if (was != 0) {
            givenUp.add(was);
        }
        lost("the session was lost");
    }

    void lost(String why) {
        long was = owner.getAndSet(0);
        if (was != 0) {
            log.warn(
                    "Job {}: instance {} lost its registration under session 0x{} ({}); registering again",
                    jobName,
                    instanceId,
                    Long.toHexString(was),
                    why);
        }
    }

    void heldBy(long other) {
        lost("another session holds its node");
        if (holder.getAndSet(other) != other) {
            log.warn(
                    "Job {}: {} is held by another session (0x{}); registering once it is gone",
                    jobName,
                    path,
                    Long.toHexString(other));
        }
    }

    /**
     * Waits for the first registration, from {@code started} ({@link System#nanoTime()}): {@code timeout}, or while
     * another session holds the node, as long as a dead process's session can hold it if that is longer: the server
     * expires a session one session timeout after it last heard from it, rounded up to its next expiry check (at most a
     * tick, itself at most half a session timeout), and its client last spoke before this start. Why it did not come,
     * naming the instance id; empty once registered.
     */
    Optional<String> awaitFirst(Duration timeout, long started, long sessionTimeoutMillis) throws InterruptedException {
        if (firstRegistration.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return Optional.empty();
        }
        Duration waited = timeout;
        Duration patience = Duration.ofMillis(sessionTimeoutMillis + sessionTimeoutMillis / 2);
        long stillHeldBy = holder.get();
        if (stillHeldBy != 0 && patience.compareTo(timeout) > 0) {
            log.info(
                    "Job {}: {} is still held by session 0x{}, perhaps this instance's previous process's; waiting"
                            + " up to {} ms for the server to expire it",
                    jobName,
                    path,
                    Long.toHexString(stillHeldBy),
                    patience.toMillis());
            long left = patience.toNanos() - (System.nanoTime() - started);
            if (firstRegistration.await(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                return Optional.empty();
            }
            waited = patience;
        }
        long heldBy = holder.get();
        return Optional.of(
                heldBy == 0
                        ? "Instance id '" + instanceId + "' of job '" + jobName + "' could not be registered at " + path
                                + " within " + waited.toMillis() + " ms"
                        : "Instance id '" + instanceId + "' of job '" + jobName + "' is held by another live session"
                                + " (0x" + Long.toHexString(heldBy) + "): after " + waited.toMillis() + " ms, longer"
                                + " than the session timeout of " + sessionTimeoutMillis + " ms, its node " + path
                                + " still belongs to it, so another process is running with this instance id. Give"
                                + " each process its own instance id (sharding.instance-id).");
    }
}
