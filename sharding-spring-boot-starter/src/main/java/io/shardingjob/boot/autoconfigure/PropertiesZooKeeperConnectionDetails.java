package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.RegistrySasl;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * The connection details of {@code sharding.zookeeper.*}: the connect string when it is set, otherwise the embedded
 * server's address when one runs. Read when the client is built, so that a missing connect string is reported then,
 * after the jobs themselves were validated.
 */
final class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

    private final ZooKeeperProperties properties;

    private final ObjectProvider<EmbeddedZooKeeper> embedded;

    private final ObjectProvider<SslBundles> sslBundles;

    PropertiesZooKeeperConnectionDetails(
            ZooKeeperProperties properties,
            ObjectProvider<EmbeddedZooKeeper> embedded,
            ObjectProvider<SslBundles> sslBundles) {
        this.properties = properties;
        this.embedded = embedded;
        this.sslBundles = sslBundles;
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

    /** A JAAS section when one is named, else DIGEST-MD5 when a user is set; none otherwise. */
    @Override
    public @Nullable RegistrySasl getSasl() {
        ZooKeeperProperties.Sasl sasl = properties.getSasl();
        RegistrySasl login;
        if (sasl.getLoginContext() != null && !sasl.getLoginContext().isBlank()) {
            login = RegistrySasl.loginContext(sasl.getLoginContext());
        } else if (sasl.getUsername() != null && !sasl.getUsername().isBlank()) {
            if (sasl.getPassword() == null || sasl.getPassword().isEmpty()) {
                throw new InvalidConfigurationPropertyValueException(
                        "sharding.zookeeper.sasl.password",
                        null,
                        "SASL DIGEST-MD5 as '" + sasl.getUsername() + "' needs the user's password");
            }
            login = RegistrySasl.digestMd5(sasl.getUsername(), sasl.getPassword());
        } else {
            return null;
        }
        return sasl.getServerPrincipal() == null ? login : login.withServerPrincipal(sasl.getServerPrincipal());
    }

    /**
     * The bundle of {@code sharding.zookeeper.ssl.bundle}; without one, a client of the embedded server connects with
     * the bundle the server serves TLS with, as a development setup has a single certificate.
     */
    @Override
    public @Nullable SslBundle getSslBundle() {
        String name = properties.getSsl().getBundle();
        if (name != null && !name.isBlank()) {
            return SslBundleProperty.resolve(sslBundles, "sharding.zookeeper.ssl.bundle", name);
        }
        String served = properties.getEmbedded().getSsl().getBundle();
        boolean toEmbedded = properties.getConnectString() == null
                || properties.getConnectString().isBlank();
        if (toEmbedded && served != null && !served.isBlank() && embedded.getIfAvailable() != null) {
            return SslBundleProperty.resolve(sslBundles, "sharding.zookeeper.embedded.ssl.bundle", served);
        }
        return null;
    }
}
