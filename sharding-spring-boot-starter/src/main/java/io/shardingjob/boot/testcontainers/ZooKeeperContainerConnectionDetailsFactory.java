package io.shardingjob.boot.testcontainers;

import io.shardingjob.boot.autoconfigure.ZooKeeperConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

/**
 * Tells the sharded jobs where a ZooKeeper container annotated {@code @ServiceConnection} listens. Spring Boot names
 * the connection after the repository of the container's image, so any tag of the official image ({@code zookeeper},
 * {@code zookeeper:3.9}) matches; another image needs {@code @ServiceConnection(name = "zookeeper")}.
 */
class ZooKeeperContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, ZooKeeperConnectionDetails> {

    /** The port ZooKeeper's clients connect to inside the container. */
    private static final int CLIENT_PORT = 2181;

    ZooKeeperContainerConnectionDetailsFactory() {
        // Boot's own factories name the client their details are for (Mongo's names com.mongodb.ConnectionString);
        // ours are for Curator, and without Curator this factory gives none.
        super("zookeeper", "org.apache.curator.framework.CuratorFrameworkFactory");
    }

    @Override
    protected ZooKeeperConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new ZooKeeperContainerConnectionDetails(source);
    }

    /**
     * Asks the container each time: its mapped port exists only once it has started, which Boot does on the first
     * {@link #getContainer()}.
     */
    private static final class ZooKeeperContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
            implements ZooKeeperConnectionDetails {

        private ZooKeeperContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public String getConnectString() {
            Container<?> container = getContainer();
            return container.getHost() + ":" + container.getMappedPort(CLIENT_PORT);
        }

        /** The bundle of the container's {@code @Ssl}, {@code @JksKeyStore} or {@code @PemKeyStore} annotations, if any. */
        @Override
        public @Nullable SslBundle getSslBundle() {
            return super.getSslBundle();
        }
    }
}
