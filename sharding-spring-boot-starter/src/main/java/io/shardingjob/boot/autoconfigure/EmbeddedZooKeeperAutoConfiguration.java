package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.InvalidRegistrySettingException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * A ZooKeeper server inside the application, for a demo or a single machine, when
 * {@code sharding.zookeeper.embedded.enabled=true}; the registry connects to it unless a connect string is set. A
 * service connection (a {@code @ServiceConnection} container in a test, a Docker Compose service) or a
 * {@link ZooKeeperConnectionDetails} bean of your own says where ZooKeeper is instead, and no server is started. With
 * {@code sharding.zookeeper.embedded.ssl.bundle} it serves TLS only, with that bundle's key.
 */
@AutoConfiguration(after = SslAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("sharding.zookeeper.embedded.enabled")
@ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
@EnableConfigurationProperties(ShardingProperties.class)
public final class EmbeddedZooKeeperAutoConfiguration {

    private static final String BUNDLE = "sharding.zookeeper.embedded.ssl.bundle";

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    EmbeddedZooKeeper embeddedZooKeeper(
            ShardingProperties properties, ResourceLoader resourceLoader, ObjectProvider<SslBundles> sslBundles)
            throws Exception {
        EmbeddedZooKeeper.checkServerDependencies(resourceLoader.getClassLoader());
        ZooKeeperProperties.Embedded embedded = properties.getZookeeper().getEmbedded();
        String directory = embedded.getDataDirectory();
        EmbeddedZooKeeper server = new EmbeddedZooKeeper(
                embedded.getPort(),
                directory == null ? null : Path.of(directory),
                embedded.getTickTime(),
                tls(embedded.getSsl().getBundle(), sslBundles));
        try {
            server.start();
        } catch (InvalidRegistrySettingException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    BUNDLE, embedded.getSsl().getBundle(), ex.getMessage());
        }
        return server;
    }

    /** The bundle's key, and its trust store for the clients' certificates. */
    private static EmbeddedZooKeeper.@Nullable Tls tls(@Nullable String name, ObjectProvider<SslBundles> sslBundles) {
        if (name == null || name.isBlank()) {
            return null;
        }
        SslBundle bundle = SslBundleProperty.resolve(sslBundles, BUNDLE, name);
        SslStoreBundle stores = bundle.getStores();
        if (stores.getKeyStore() == null) {
            throw new InvalidConfigurationPropertyValueException(
                    BUNDLE,
                    name,
                    "The bundle has no key store: give it the server's key and certificate"
                            + " (spring.ssl.bundle.jks.<name>.keystore.* or spring.ssl.bundle.pem.<name>.keystore.*)");
        }
        String keyPassword =
                bundle.getKey().getPassword() != null ? bundle.getKey().getPassword() : stores.getKeyStorePassword();
        return new EmbeddedZooKeeper.Tls(stores.getKeyStore(), keyPassword, stores.getTrustStore());
    }
}
