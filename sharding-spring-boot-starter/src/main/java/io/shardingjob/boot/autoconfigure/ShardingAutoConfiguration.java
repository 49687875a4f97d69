package io.shardingjob.boot.autoconfigure;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardingjob.boot.ShardedJobCompletionListener;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.boot.actuate.ShardingHealthIndicator;
import io.shardingjob.boot.actuate.ShardingMetrics;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * Runs every {@code @ShardedJob} method of the application as a sharded job coordinated through ZooKeeper.
 *
 * <p>The registry connection is lazy: the jobs are validated first, so that a wrong cron is reported as such even while
 * ZooKeeper is down, and the connection is made when the jobs start. Actuator, health and Micrometer are optional; each
 * has its own nested configuration.
 */
// After the DataSource, named rather than referenced, so that JDBC stays optional.
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingAutoConfiguration {

    /** Static, as bean post-processors must be, so that it does not pull this configuration in early. */
    @Bean
    static ShardedJobAnnotationBeanPostProcessor shardedJobAnnotationBeanPostProcessor() {
        return new ShardedJobAnnotationBeanPostProcessor();
    }

    /** Started here; a {@code RegistryCenter} bean of your own must be started by you as well. */
    @Bean(destroyMethod = "close")
    @Lazy
    @ConditionalOnMissingBean
    RegistryCenter shardingRegistryCenter(
            ShardingProperties properties, Environment environment, ObjectProvider<EmbeddedZooKeeper> embedded) {
        ZooKeeperProperties zooKeeper = properties.getZookeeper();
        String connectString = zooKeeper.getConnectString();
        if (connectString == null || connectString.isBlank()) {
            EmbeddedZooKeeper server = embedded.getIfAvailable();
            if (server == null) {
                throw new InvalidConfigurationPropertyValueException(
                        "sharding.zookeeper.connect-string",
                        connectString,
                        "Set it to the ZooKeeper ensemble, such as 'zk1:2181,zk2:2181,zk3:2181', or set"
                                + " sharding.zookeeper.embedded.enabled=true to run ZooKeeper inside the application");
            }
            connectString = server.connectString();
        }
        String namespace = zooKeeper.getNamespace() != null
                ? zooKeeper.getNamespace()
                : environment.getProperty("spring.application.name", "sharding");
        RegistryConfiguration configuration;
        try {
            configuration = new RegistryConfiguration(
                    connectString,
                    namespace,
                    zooKeeper.getSessionTimeout(),
                    zooKeeper.getConnectionTimeout(),
                    zooKeeper.getBaseSleepTime(),
                    zooKeeper.getMaxRetries(),
                    zooKeeper.getMaxSleepTime(),
                    zooKeeper.getDigest());
        } catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException("sharding.zookeeper", null, ex.getMessage(), ex);
        }
        RegistryCenter registry = new RegistryCenter(configuration);
        registry.start();
        return registry;
    }

    /** The built-in strategies, those registered with ServiceLoader, and every {@code ShardingStrategy} bean. */
    @Bean
    @ConditionalOnMissingBean
    ShardingStrategies shardingStrategies(ObjectProvider<ShardingStrategy> strategies) {
        return ShardingStrategies.defaults().with(strategies.orderedStream().toArray(ShardingStrategy[]::new));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ShardedJobExecutors shardedJobExecutors(ShardingProperties properties, Environment environment) {
        int schedulerThreads = properties.getScheduler().getPoolSize();
        int coordinationThreads = properties.getCoordination().getPoolSize();
        ShardingProperties.Execution execution = properties.getExecution();
        return Threading.VIRTUAL.isActive(environment)
                ? ShardedJobExecutors.virtual(schedulerThreads, coordinationThreads, execution.getPoolSize())
                : ShardedJobExecutors.platform(
                        schedulerThreads,
                        coordinationThreads,
                        execution.getMaxConcurrentFires(),
                        execution.getPoolSize());
    }

    @Bean
    ExecutionHistory shardedJobExecutionHistory(ShardingProperties properties) {
        return new ExecutionHistory(properties.getExecution().getHistorySize());
    }

    @Bean
    RunningJobs shardedJobsRunning(
            ShardingProperties properties,
            ShardingStrategies strategies,
            ShardedJobExecutors executors,
            ObjectProvider<ShardedJobFireListener> fireListeners,
            ObjectProvider<ShardedJobCompletionListener> completionListeners) {
        JobListeners listeners = new JobListeners(
                () -> fireListeners.orderedStream().toList(),
                () -> completionListeners.orderedStream().toList());
        return new RunningJobs(properties, strategies, executors, listeners);
    }

    @Bean
    ShardedJobLifecycle shardedJobLifecycle(
            ShardedJobAnnotationBeanPostProcessor discovery,
            ShardingProperties properties,
            ShardingStrategies strategies,
            ObjectProvider<RegistryCenter> registry,
            ObjectProvider<ShardedJobConfigurationCustomizer> customizers,
            ObjectProvider<ShardedJobListener> listeners,
            RunningJobs jobs,
            ShardedJobExecutors executors) {
        JobConfigurationResolver resolver = new JobConfigurationResolver(
                properties, strategies, customizers.orderedStream().toList(), discovery::resolve);
        return new ShardedJobLifecycle(
                discovery,
                resolver,
                properties,
                registry::getObject,
                () -> listeners.orderedStream().toList(),
                jobs,
                executors);
    }

    @Bean
    @ConditionalOnMissingBean
    ShardingOperations shardingOperations(
            RunningJobs jobs, ExecutionHistory history, ObjectProvider<JdbcExecutionLog> jdbcLog) {
        ExecutionLog log = jdbcLog.getIfAvailable();
        return new DefaultShardingOperations(jobs, history, log != null ? log : history);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("sharding.execution.jdbc-log.enabled")
    @ConditionalOnSingleCandidate(DataSource.class)
    static class JdbcExecutionLogConfiguration {

        /** Started at once: it only starts a writer thread, which touches the database when the first record comes. */
        @Bean(destroyMethod = "close")
        JdbcExecutionLog shardedJobJdbcExecutionLog(DataSource dataSource, ShardingProperties properties) {
            ShardingProperties.JdbcLog settings = properties.getExecution().getJdbcLog();
            JdbcExecutionLog log = new JdbcExecutionLog(
                    dataSource, settings.isInitializeSchema(), settings.getQueueCapacity(), settings.getBatchSize());
            log.start();
            return log;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty("sharding.zookeeper.embedded.enabled")
    static class EmbeddedZooKeeperConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        EmbeddedZooKeeper embeddedZooKeeper(ShardingProperties properties, ResourceLoader resourceLoader)
                throws Exception {
            EmbeddedZooKeeper.checkServerDependencies(resourceLoader.getClassLoader());
            ZooKeeperProperties.Embedded embedded = properties.getZookeeper().getEmbedded();
            String directory = embedded.getDataDirectory();
            EmbeddedZooKeeper server = new EmbeddedZooKeeper(
                    embedded.getPort(), directory == null ? null : Path.of(directory), embedded.getTickTime());
            server.start();
            return server;
        }
    }

    /** Conditions that need the optional classes sit on the bean method: Spring loads a class's conditions together. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
    static class ShardingEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        ShardingEndpoint shardingEndpoint(ShardingOperations operations) {
            return new ShardingEndpoint(operations);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class ShardingHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "shardingHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("sharding")
        ShardingHealthIndicator shardingHealthIndicator(ShardingOperations operations) {
            return new ShardingHealthIndicator(operations);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class ShardingMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ShardingMetrics shardingMetrics() {
            return new ShardingMetrics();
        }
    }
}
