package io.shardingjob.boot.autoconfigure;

import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * A ZooKeeper server inside the application, for a demo or a single machine, when
 * {@code sharding.zookeeper.embedded.enabled=true}; the registry connects to it unless a connect string is set. A
 * service connection (a {@code @ServiceConnection} container in a test, a Docker Compose service) or a
 * {@link ZooKeeperConnectionDetails} bean of your own says where ZooKeeper is instead, and no server is started.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("sharding.zookeeper.embedded.enabled")
@ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
@EnableConfigurationProperties(ShardingProperties.class)
public final class EmbeddedZooKeeperAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    EmbeddedZooKeeper embeddedZooKeeper(ShardingProperties properties, ResourceLoader resourceLoader) throws Exception {
        EmbeddedZooKeeper.checkServerDependencies(resourceLoader.getClassLoader());
        ZooKeeperProperties.Embedded embedded = properties.getZookeeper().getEmbedded();
        String directory = embedded.getDataDirectory();
        EmbeddedZooKeeper server = new EmbeddedZooKeeper(
                embedded.getPort(), directory == null ? null : Path.of(directory), embedded.getTickTime());
        server.start();
        return server;
    }
}
