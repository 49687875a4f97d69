package io.shardingjob.core.registry;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
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
 * <p>It also measures how far this instance's wall clock is from ZooKeeper's ({@link #clockSkew()}).
 */
public final class RegistryCenter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RegistryCenter.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    /** Rooted at the namespace; for a client of the application's own, set once it started. */
    private volatile CuratorFramework client;

    /** The client itself, not a namespace facade of it: only the client can be started. */
    private final CuratorFramework unrooted;

    /** The namespace to root a client of the application's own at when it has none; null for a client built here. */
    private final @Nullable String fallbackNamespace;

    private final boolean ownsClient;
    private final Duration connectionTimeout;
    private final Duration maxClockSkew;
    private final ClientSecurity security;

    /** Set once started. */
    private volatile @Nullable ClockProbe clock;

    public RegistryCenter(RegistryConfiguration configuration) {
        this(configuration, builder -> {});
    }

    /**
     * Builds the client from the configuration, then lets {@code customizer} change the builder (an ensemble tracker,
     * a compression provider, an authorization of its own) before it is built. Not {@code enableCompression()}: jobs
     * refuse to start on a client that compresses by default.
     */
    public RegistryCenter(RegistryConfiguration configuration, Consumer<CuratorFrameworkFactory.Builder> customizer) {
        RegistryConfiguration.Retry retry = configuration.retry();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(configuration.connectString())
                .namespace(configuration.namespace())
                .sessionTimeoutMs(millis(configuration.sessionTimeout()))
                .connectionTimeoutMs(millis(configuration.connectionTimeout()))
                .retryPolicy(new ExponentialBackoffRetry(
                        millis(retry.baseSleepTime()), retry.maxRetries(), millis(retry.maxSleepTime())));
        this.security = ClientSecurity.configure(configuration.security(), builder);
        customizer.accept(builder);
        this.client = builder.build();
        this.unrooted = client;
        this.fallbackNamespace = null;
        this.ownsClient = true;
        this.connectionTimeout = configuration.connectionTimeout();
        this.maxClockSkew = configuration.maxClockSkew();
    }

    private RegistryCenter(CuratorFramework unrooted, String namespace, Duration maxClockSkew) {
        this.security = ClientSecurity.ofApplicationsClient();
        this.client = unrooted;
        this.unrooted = unrooted;
        this.fallbackNamespace = namespace;
        this.ownsClient = false;
        this.connectionTimeout = Duration.ofMillis(unrooted.getZookeeperClient().getConnectionTimeoutMs());
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
        RegistryConfiguration.positive(maxClockSkew, "maxClockSkew");
        return new RegistryCenter(client, namespace, maxClockSkew);
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
        security.listenTo(unrooted);
        if (unrooted.getState() == CuratorFrameworkState.LATENT) {
            unrooted.start();
        }
        String own = unrooted.getNamespace();
        if (fallbackNamespace != null && (own == null || own.isEmpty())) {
            client = unrooted.usingNamespace(fallbackNamespace);
        }
        boolean connected;
        try {
            connected = client.blockUntilConnected(millis(connectionTimeout), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        Optional<String> failure = security.startFailure(client, connected, connectionTimeout);
        if (failure.isPresent()) {
            close();
            throw new RegistryUnavailableException(failure.get());
        }
        log.info(
                "Connected to ZooKeeper at {} (namespace '{}', session timeout {} ms)",
                connectString(),
                client.getNamespace(),
                client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        ClockProbe started = new ClockProbe(client, maxClockSkew);
        clock = started;
        started.start();
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
        ClockProbe probe = clock;
        return probe == null ? Optional.empty() : probe.skew();
    }

    /** Closes the client when it was built here; a client of the application's own is left to the application. */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.CLOSED) {
            ClockProbe probe = clock;
            if (probe != null) {
                probe.stop();
            }
            if (ownsClient) {
                client.close();
            }
            security.close();
        }
    }

    private static int millis(Duration duration) {
        return Math.toIntExact(duration.toMillis());
    }
}
