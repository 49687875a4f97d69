package io.shardingjob.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The connection details of {@code sharding.zookeeper.*}: the connect string when it is set, otherwise the embedded
 * server's address when one runs. Read when the client is built, so that a missing connect string is reported then,
 * after the jobs themselves were validated.
 */
final class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

    private final ZooKeeperProperties properties;

    private final ObjectProvider<EmbeddedZooKeeper> embedded;

    PropertiesZooKeeperConnectionDetails(ZooKeeperProperties properties, ObjectProvider<EmbeddedZooKeeper> embedded) {
        this.properties = properties;
        this.embedded = embedded;
    }

    @Override
    public String getConnectString() {
        String connectString = properties.getConnectString();
        if (connectString != null && !connectString.isBlank()) {
            return connectString;
        }
        EmbeddedZooKeeper server = embedded.getIfAvailable();
        if (server == null) {
            throw new InvalidConfigurationPropertyValueException(
                    "sharding.zookeeper.connect-string",
                    connectString,
                    "Set it to the ZooKeeper ensemble, such as 'zk1:2181,zk2:2181,zk3:2181', or set"
                            + " sharding.zookeeper.embedded.enabled=true to run ZooKeeper inside the application");
        }
        return server.connectString();
    }

    @Override
    public @Nullable String getDigest() {
        return properties.getDigest();
    }
}
