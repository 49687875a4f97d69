package io.shardingjob.core.registry;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Curator client every job of an application shares, rooted at the configured namespace. Jobs never create their
 * own clients: one session per process keeps the number of ZooKeeper connections equal to the number of instances.
 */
public final class RegistryCenter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RegistryCenter.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final RegistryConfiguration configuration;

    private final CuratorFramework client;

    public RegistryCenter(RegistryConfiguration configuration) {
        this.configuration = configuration;
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
        this.client = builder.build();
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
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected(
                    Math.toIntExact(configuration.connectionTimeout().toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            close();
            throw new RegistryUnavailableException("Could not connect to ZooKeeper at '" + configuration.connectString()
                    + "' within " + configuration.connectionTimeout().toMillis()
                    + " ms (sharding.zookeeper.connect-string / connection-timeout)");
        }
        log.info(
                "Connected to ZooKeeper at {} (namespace '{}', session timeout {} ms)",
                configuration.connectString(),
                configuration.namespace(),
                configuration.sessionTimeout().toMillis());
    }

    /** The namespaced client; paths given to it are relative to the namespace. */
    public CuratorFramework client() {
        return client;
    }

    public RegistryConfiguration configuration() {
        return configuration;
    }

    /** Whether the client currently has a live connection. */
    public boolean isConnected() {
        return state.get() == State.STARTED && client.getZookeeperClient().isConnected();
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.CLOSED) {
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
