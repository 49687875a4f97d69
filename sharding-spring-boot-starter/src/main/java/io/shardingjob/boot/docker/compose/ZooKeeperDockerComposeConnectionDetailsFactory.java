package io.shardingjob.boot.docker.compose;

import io.shardingjob.boot.autoconfigure.ZooKeeperConnectionDetails;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * Tells the sharded jobs where the ZooKeeper service of a Docker Compose file listens: a service of the official
 * {@code zookeeper} image (any tag), or of another image labelled
 * {@code org.springframework.boot.service-connection: zookeeper}.
 */
class ZooKeeperDockerComposeConnectionDetailsFactory
        extends DockerComposeConnectionDetailsFactory<ZooKeeperConnectionDetails> {

    /** The port ZooKeeper's clients connect to inside the container. */
    private static final int CLIENT_PORT = 2181;

    ZooKeeperDockerComposeConnectionDetailsFactory() {
        // Boot's own factories name the client their details are for (Mongo's names com.mongodb.ConnectionString);
        // ours are for Curator, and without Curator this factory gives none.
        super("zookeeper", "org.apache.curator.framework.CuratorFrameworkFactory");
    }

    @Override
    protected ZooKeeperConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
        return new ZooKeeperDockerComposeConnectionDetails(source.getRunningService());
    }

    /** Read once: Compose has started the service and mapped its ports before it hands it over. */
    private static final class ZooKeeperDockerComposeConnectionDetails extends DockerComposeConnectionDetails
            implements ZooKeeperConnectionDetails {

        private final String connectString;

        private ZooKeeperDockerComposeConnectionDetails(RunningService service) {
            super(service);
            this.connectString = service.host() + ":" + service.ports().get(CLIENT_PORT);
        }

        @Override
        public String getConnectString() {
            return this.connectString;
        }
    }
}
