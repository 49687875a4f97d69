package io.shardingjob.core.registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Curator client every job of an application shares, rooted at the configured namespace. Jobs never create their
 * own clients: one session per process keeps the number of ZooKeeper connections equal to the number of instances.
 *
 * <p>Either it builds and owns its client from a {@link RegistryConfiguration} (optionally customized before it is
 * built), and closes it on {@link #close()}; or it uses a client the application built and owns ({@link #using}), which
 * it starts when nobody has yet and never closes.
 *
 * <p>It also measures how far this instance's wall clock is from ZooKeeper's ({@link #clockSkew()}): on every
 * connection, and again when asked more than a minute after the last measurement, it writes the node {@code /.clock}
 * under the namespace (empty data, watched by nobody: one write per instance at most once a minute while someone
 * looks, such as a health check) and compares the {@code mtime} the server gave it with the local midpoint of the
 * round trip. Job names start with a letter or a digit, so {@code /.clock} can be no job's root.
 */
public final class RegistryCenter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RegistryCenter.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    /** The node whose writes show ZooKeeper's clock, relative to the namespace. */
    static final String CLOCK_NODE = "/.clock";

    /** How old the last clock measurement may be before asking for the skew measures it again. */
    static final Duration REMEASURE_AFTER = Duration.ofMinutes(1);

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final AtomicReference<ClockSkew> clockSkew = new AtomicReference<>();

    /** {@link System#nanoTime()} when the last clock measurement was sent. */
    private final AtomicLong lastMeasurement = new AtomicLong();

    private final ConnectionStateListener clockRemeasure = this::connectionStateChanged;

    /** Rooted at the namespace; for a client of the application's own, set once it started. */
    private volatile CuratorFramework client;

    /** The client itself, not a namespace facade of it: only the client can be started. */
    private final CuratorFramework unrooted;

    /** The namespace to root a client of the application's own at when it has none; null for a client built here. */
    private final String fallbackNamespace;

    private final boolean ownsClient;

    private final Duration connectionTimeout;

    private final String connectionHint;

    /** The setting of this application's identity (a digest, a SASL login), or null when it has none of its own. */
    private final @Nullable String identitySetting;

    private final Duration maxClockSkew;

    /** The stores of a TLS connection, written for ZooKeeper's client to read; deleted once the client is closed. */
    private final @Nullable TlsStoreFiles tlsFiles;

    private final @Nullable RegistryTls tls;

    /** The SASL login: the JAAS section it made, and ZooKeeper's answer, which start-up waits for. */
    private final @Nullable SaslLogin saslLogin;

    public RegistryCenter(RegistryConfiguration configuration) {
        this(configuration, builder -> {});
    }

    /**
     * Builds the client from the configuration, then lets {@code customizer} change the builder (an ensemble tracker,
     * a compression provider, an authorization of its own) before it is built. Not {@code enableCompression()}: jobs
     * refuse to start on a client that compresses by default.
     */
    public RegistryCenter(RegistryConfiguration configuration, Consumer<CuratorFrameworkFactory.Builder> customizer) {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(configuration.connectString())
                .namespace(configuration.namespace())
                .sessionTimeoutMs(Math.toIntExact(configuration.sessionTimeout().toMillis()))
                .connectionTimeoutMs(
                        Math.toIntExact(configuration.connectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(
                        Math.toIntExact(configuration.baseSleepTime().toMillis()),
                        configuration.maxRetries(),
                        Math.toIntExact(configuration.maxSleepTime().toMillis())));
        if (configuration.digest() != null) {
            builder.authorization("digest", configuration.digest().getBytes(StandardCharsets.UTF_8));
        }
        if (configuration.digest() != null || configuration.sasl() != null) {
            builder.aclProvider(new CreatorOnlyAclProvider());
        }
        ZKClientConfig clientConfig = new ZKClientConfig();
        this.tls = configuration.tls();
        this.tlsFiles = tls == null ? null : TlsStoreFiles.forClient(tls, clientConfig);
        this.saslLogin = configuration.sasl() == null ? null : SaslLogin.configure(configuration.sasl(), clientConfig);
        if (configuration.tls() != null || configuration.sasl() != null) {
            builder.zkClientConfig(clientConfig);
        }
        customizer.accept(builder);
        this.client = builder.build();
        this.unrooted = client;
        this.fallbackNamespace = null;
        this.ownsClient = true;
        this.identitySetting = configuration.digest() != null
                ? "sharding.zookeeper.digest"
                : configuration.sasl() != null ? "sharding.zookeeper.sasl.*" : null;
        this.connectionTimeout = configuration.connectionTimeout();
        this.connectionHint = tlsFiles == null
                ? "sharding.zookeeper.connect-string / connection-timeout"
                : "sharding.zookeeper.connect-string / connection-timeout / ssl.bundle: over TLS, the address must be a"
                        + " secureClientPort, the bundle's trust store must trust the server's certificate (which must"
                        + " name the host unless host name verification is off), and the bundle must hold a key if the"
                        + " server asks for a client certificate";
        this.maxClockSkew = configuration.maxClockSkew();
    }

    private RegistryCenter(
            CuratorFramework unrooted, String namespace, Duration connectionTimeout, Duration maxClockSkew) {
        this.tlsFiles = null;
        this.tls = null;
        this.saslLogin = null;
        this.client = unrooted;
        this.unrooted = unrooted;
        this.fallbackNamespace = namespace;
        this.ownsClient = false;
        this.identitySetting = null;
        this.connectionTimeout = connectionTimeout;
        this.connectionHint = "the application's own CuratorFramework";
        this.maxClockSkew = maxClockSkew;
    }

    /**
     * Uses a client the application built and owns, as it is: its connect string, session, retry policy and ACLs.
     * Jobs live under the client's namespace when it has one, otherwise under {@code namespace}; the client is started
     * here when nobody started it yet, and never closed here.
     */
    public static RegistryCenter using(CuratorFramework client, String namespace) {
        return using(client, namespace, RegistryConfiguration.DEFAULT_MAX_CLOCK_SKEW);
    }

    /** As {@link #using(CuratorFramework, String)}, tolerating a clock skew of {@code maxClockSkew}. */
    public static RegistryCenter using(CuratorFramework client, String namespace, Duration maxClockSkew) {
        if (maxClockSkew == null || maxClockSkew.isNegative() || maxClockSkew.isZero()) {
            throw new InvalidRegistrySettingException(
                    "maxClockSkew", "maxClockSkew must be positive, was " + maxClockSkew);
        }
        return new RegistryCenter(
                client,
                namespace,
                Duration.ofMillis(client.getZookeeperClient().getConnectionTimeoutMs()),
                maxClockSkew);
    }

    /**
     * Connects, waiting at most the connection timeout.
     *
     * @throws RegistryUnavailableException naming the connect string when no connection was made in time
     */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("The registry center can be started only once");
        }
        if (saslLogin != null) {
            unrooted.getCuratorListenable().addListener(saslLogin);
        }
        if (unrooted.getState() == CuratorFrameworkState.LATENT) {
            unrooted.start();
        }
        String own = unrooted.getNamespace();
        if (fallbackNamespace != null && (own == null || own.isEmpty())) {
            client = unrooted.usingNamespace(fallbackNamespace);
        }
        boolean connected;
        try {
            connected =
                    client.blockUntilConnected(Math.toIntExact(connectionTimeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        Optional<String> unconfirmed = saslLogin == null
                ? Optional.empty()
                : saslLogin.awaitProblem(connected ? connectionTimeout : Duration.ZERO);
        if (unconfirmed.isPresent() && (connected || saslLogin.refused())) {
            String where = connectString();
            close();
            throw new RegistryUnavailableException("ZooKeeper at '" + where + "' " + unconfirmed.get()
                    + ": check sharding.zookeeper.sasl.* against the server's JAAS section (Server), its authProvider"
                    + " (SASLAuthenticationProvider) and, for DIGEST-MD5, its zookeeper.fips-mode=false");
        }
        if (!connected) {
            String where = connectString();
            close();
            // Over TLS, a handshake of its own says which of the usual causes it is.
            String found = tls == null
                    ? ""
                    : TlsDiagnosis.of(tls, where, connectionTimeout)
                            .map(diagnosis -> diagnosis + "; ")
                            .orElse("");
            throw new RegistryUnavailableException("Could not connect to ZooKeeper at '" + where + "' within "
                    + connectionTimeout.toMillis() + " ms (" + found + connectionHint + ")");
        }
        if (identitySetting != null) {
            checkNamespaceAccess();
        }
        log.info(
                "Connected to ZooKeeper at {} (namespace '{}', session timeout {} ms)",
                connectString(),
                client.getNamespace(),
                client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        client.getConnectionStateListenable().addListener(clockRemeasure);
        measureClockSkew(true);
    }

    /**
     * With authentication, the namespace must be readable by this identity. ZooKeeper accepts any digest (the identity
     * is the digest), so a wrong one would otherwise show only as refused reads once the jobs start.
     */
    private void checkNamespaceAccess() {
        try {
            client.getData().forPath("/");
        } catch (KeeperException.NoAuthException refused) {
            String namespace = client.getNamespace();
            close();
            throw new RegistryUnavailableException(
                    "ZooKeeper refuses this application's identity access to its namespace"
                            + " '/" + namespace + "', whose nodes another identity created: check " + identitySetting
                            + " (every instance of the application must use the same identity)");
        } catch (Exception notAboutIdentity) {
            // No namespace yet (this identity creates it), or a failure the jobs report when they start.
            log.debug("Could not read the namespace to check this identity's access: {}", notAboutIdentity.toString());
        }
    }

    /** The namespaced client; paths given to it are relative to the namespace. */
    public CuratorFramework client() {
        return client;
    }

    /** The ensemble the client connects to. */
    public String connectString() {
        return client.getZookeeperClient().getCurrentConnectionString();
    }

    /** The node under which every job lives. */
    public String namespace() {
        return client.getNamespace();
    }

    /** Whether the client currently has a live connection. */
    public boolean isConnected() {
        return state.get() == State.STARTED && client.getZookeeperClient().isConnected();
    }

    /**
     * How far this instance's wall clock is from ZooKeeper's, as the last measurement showed it; empty until one was
     * made. Measured on every connection; when the last measurement is more than a minute old, this asks for a new one
     * in the background and answers the last.
     */
    public Optional<ClockSkew> clockSkew() {
        if (isConnected()) {
            measureClockSkew(false);
        }
        return Optional.ofNullable(clockSkew.get());
    }

    /** Closes the client when it was built here; a client of the application's own is left to the application. */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.CLOSED) {
            client.getConnectionStateListenable().removeListener(clockRemeasure);
            if (ownsClient) {
                client.close();
            }
            if (tlsFiles != null) {
                tlsFiles.close();
            }
            if (saslLogin != null) {
                saslLogin.close();
            }
        }
    }

    private void connectionStateChanged(CuratorFramework framework, ConnectionState newState) {
        if (newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED) {
            measureClockSkew(true);
        }
    }

    /** Sends a measurement unless one was sent less than a minute ago; {@code now} sends one anyway. */
    private void measureClockSkew(boolean now) {
        long last = lastMeasurement.get();
        long sending = System.nanoTime();
        if (!now && last != 0 && sending - last < REMEASURE_AFTER.toNanos()) {
            return;
        }
        if (state.get() == State.STARTED && lastMeasurement.compareAndSet(last, sending == 0 ? 1 : sending)) {
            probeClock(true);
        }
    }

    /** Writes the clock node in the background; a missing node is created once and written again. */
    private void probeClock(boolean createIfMissing) {
        long sentAt = System.currentTimeMillis();
        long sentNanos = System.nanoTime();
        try {
            client.setData()
                    .inBackground((framework, event) -> clockProbed(event, sentAt, sentNanos, createIfMissing))
                    .forPath(CLOCK_NODE, new byte[0]);
        } catch (Exception ex) {
            log.debug("Could not measure the clock skew: {}", ex.toString());
        }
    }

    private void clockProbed(CuratorEvent event, long sentAt, long sentNanos, boolean createIfMissing) {
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
                                probeClock(false);
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
        ClockSkew previous = clockSkew.getAndSet(measured);
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

    /** With digest or SASL authentication, only the creating identity may read or change our nodes. */
    private static final class CreatorOnlyAclProvider implements ACLProvider {

        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    }
}
