package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.InvalidRegistrySettingException;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.registry.RegistryTls;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
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
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;

/**
 * The ZooKeeper client every sharded job of the application shares. It connects to what the
 * {@link ZooKeeperConnectionDetails} say ({@code sharding.zookeeper.*} unless a service connection or a bean of your own
 * says otherwise), built with the {@link CuratorFrameworkBuilderCustomizer} beans; a {@link CuratorFramework} bean of
 * your own is used as it is instead.
 *
 * <p>The connection is lazy: the jobs are validated first, so that a wrong cron is reported as such even while ZooKeeper
 * is down, and the connection is made when the jobs start.
 */
@AutoConfiguration(after = {EmbeddedZooKeeperAutoConfiguration.class, SslAutoConfiguration.class})
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingRegistryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ZooKeeperConnectionDetails zooKeeperConnectionDetails(
            ShardingProperties properties,
            ObjectProvider<EmbeddedZooKeeper> embedded,
            ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesZooKeeperConnectionDetails(properties.getZookeeper(), embedded, sslBundles);
    }

    /** Started here; a {@code RegistryCenter} bean of your own must be started by you as well. */
    @Bean(destroyMethod = "close")
    @Lazy
    @ConditionalOnMissingBean
    RegistryCenter shardingRegistryCenter(
            ShardingProperties properties,
            Environment environment,
            ZooKeeperConnectionDetails connection,
            ObjectProvider<CuratorFramework> applicationClient,
            ObjectProvider<CuratorFrameworkBuilderCustomizer> customizers) {
        ZooKeeperProperties zooKeeper = properties.getZookeeper();
        String namespace = zooKeeper.getNamespace() != null
                ? zooKeeper.getNamespace()
                : environment.getProperty("spring.application.name", "sharding");
        CuratorFramework own = applicationClient.getIfUnique();
        RegistryCenter registry = own != null
                ? using(own, namespace, zooKeeper.getMaxClockSkew())
                : built(
                        configuration(zooKeeper, connection, namespace),
                        builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
        registry.start();
        return registry;
    }

    /** {@code connectString} to {@code connect-string}, {@code tls} to {@code ssl.bundle}: the property of a setting. */
    private static String kebab(String setting) {
        if (setting.equals("tls")) {
            return "ssl.bundle";
        }
        return setting.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static RegistryCenter built(
            RegistryConfiguration configuration, Consumer<CuratorFrameworkFactory.Builder> customizer) {
        try {
            return new RegistryCenter(configuration, customizer);
        } catch (InvalidRegistrySettingException ex) {
            throw invalid(ex);
        }
    }

    private static RegistryCenter using(CuratorFramework own, String namespace, Duration maxClockSkew) {
        try {
            return RegistryCenter.using(own, namespace, maxClockSkew);
        } catch (InvalidRegistrySettingException ex) {
            throw invalid(ex);
        }
    }

    private static InvalidConfigurationPropertyValueException invalid(InvalidRegistrySettingException ex) {
        String property = "sharding.zookeeper." + kebab(ex.setting());
        return new InvalidConfigurationPropertyValueException(property, null, ex.getMessage(), ex);
    }

    private static RegistryConfiguration configuration(
            ZooKeeperProperties zooKeeper, ZooKeeperConnectionDetails connection, String namespace) {
        try {
            return RegistryConfiguration.of(connection.getConnectString(), namespace)
                    .withSessionTimeout(zooKeeper.getSessionTimeout())
                    .withConnectionTimeout(zooKeeper.getConnectionTimeout())
                    .withRetry(new RegistryConfiguration.Retry(
                            zooKeeper.getBaseSleepTime(), zooKeeper.getMaxRetries(), zooKeeper.getMaxSleepTime()))
                    .withMaxClockSkew(zooKeeper.getMaxClockSkew())
                    .withDigest(connection.getDigest())
                    .withTls(tls(connection.getSslBundle(), zooKeeper))
                    .withSasl(connection.getSasl());
        } catch (InvalidRegistrySettingException ex) {
            throw invalid(ex);
        }
    }

    /** The bundle's trust store, and its key store and key password for a server that asks for a certificate. */
    private static @Nullable RegistryTls tls(@Nullable SslBundle bundle, ZooKeeperProperties zooKeeper) {
        if (bundle == null) {
            return null;
        }
        ZooKeeperProperties.Ssl ssl = zooKeeper.getSsl();
        SslStoreBundle stores = bundle.getStores();
        KeyStore trustStore = stores.getTrustStore();
        if (trustStore == null) {
            // Without a bundle of its own, the client of the embedded server connects with the server's.
            boolean own = ssl.getBundle() != null && !ssl.getBundle().isBlank();
            String served = zooKeeper.getEmbedded().getSsl().getBundle();
            throw new InvalidConfigurationPropertyValueException(
                    own || served == null ? "sharding.zookeeper.ssl.bundle" : "sharding.zookeeper.embedded.ssl.bundle",
                    own || served == null ? ssl.getBundle() : served,
                    "The bundle has no trust store: give it the certificate (or authority) of the ZooKeeper servers"
                            + " (spring.ssl.bundle.jks.<name>.truststore.* or spring.ssl.bundle.pem.<name>.truststore.*)"
                            + (own || served == null
                                    ? ""
                                    : ", or set sharding.zookeeper.ssl.bundle to a bundle that trusts the embedded"
                                            + " server's certificate"));
        }
        RegistryTls tls = RegistryTls.trusting(trustStore);
        KeyStore keyStore = stores.getKeyStore();
        if (keyStore != null) {
            String keyPassword = bundle.getKey().getPassword() != null
                    ? bundle.getKey().getPassword()
                    : stores.getKeyStorePassword();
            tls = tls.withKey(keyStore, keyPassword);
        }
        return ssl.isVerifyHostName() ? tls : tls.withoutHostNameVerification();
    }
}
