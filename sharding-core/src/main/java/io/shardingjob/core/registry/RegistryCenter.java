package io.shardingjob.core.registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Curator client every job of an application shares, rooted at the configured namespace. Jobs never create their
 * own clients: one session per process keeps the number of ZooKeeper connections equal to the number of instances.
 *
 * <p>Either it builds and owns its client from a {@link RegistryConfiguration} (optionally customized before it is
 * built), and closes it on {@link #close()}; or it uses a client the application built and owns ({@link #using}), which
 * it starts when nobody has yet and never closes.
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
    private final String fallbackNamespace;

    private final boolean ownsClient;

    private final Duration connectionTimeout;

    private final String connectionHint;

    public RegistryCenter(RegistryConfiguration configuration) {
        this(configuration, builder -> {});
    }

    /**
     * Builds the client from the configuration, then lets {@code customizer} change the builder (an ensemble tracker,
     * a compression provider, an authorization of its own) before it is built.
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
            builder.authorization("digest", configuration.digest().getBytes(StandardCharsets.UTF_8))
                    .aclProvider(new CreatorOnlyAclProvider());
        }
        customizer.accept(builder);
        this.client = builder.build();
        this.unrooted = client;
        this.fallbackNamespace = null;
        this.ownsClient = true;
        this.connectionTimeout = configuration.connectionTimeout();
        this.connectionHint = "sharding.zookeeper.connect-string / connection-timeout";
    }

    private RegistryCenter(CuratorFramework unrooted, String namespace, Duration connectionTimeout) {
        this.client = unrooted;
        this.unrooted = unrooted;
        this.fallbackNamespace = namespace;
        this.ownsClient = false;
        this.connectionTimeout = connectionTimeout;
        this.connectionHint = "the application's own CuratorFramework";
    }

    /**
     * Uses a client the application built and owns, as it is: its connect string, session, retry policy and ACLs.
     * Jobs live under the client's namespace when it has one, otherwise under {@code namespace}; the client is started
     * here when nobody started it yet, and never closed here.
     */
    public static RegistryCenter using(CuratorFramework client, String namespace) {
        return new RegistryCenter(
                client, namespace, Duration.ofMillis(client.getZookeeperClient().getConnectionTimeoutMs()));
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
        if (!connected) {
            close();
            throw new RegistryUnavailableException("Could not connect to ZooKeeper at '" + connectString() + "' within "
                    + connectionTimeout.toMillis() + " ms (" + connectionHint + ")");
        }
        log.info(
                "Connected to ZooKeeper at {} (namespace '{}', session timeout {} ms)",
                connectString(),
                client.getNamespace(),
                client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
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

    /** Closes the client when it was built here; a client of the application's own is left to the application. */
    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.CLOSED && ownsClient) {
            client.close();
        }
    }

    /** With digest authentication, only the creating identity may read or change our nodes. */
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
