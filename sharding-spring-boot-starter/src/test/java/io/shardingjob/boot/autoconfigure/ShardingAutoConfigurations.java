package io.shardingjob.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;

/** Every auto-configuration of the starter, as an application with it on the class path gets them. */
final class ShardingAutoConfigurations {

    private ShardingAutoConfigurations() {}

    static AutoConfigurations all() {
        return AutoConfigurations.of(
                EmbeddedZooKeeperAutoConfiguration.class,
                ShardingRegistryAutoConfiguration.class,
                ShardingJdbcExecutionLogAutoConfiguration.class,
                ShardingFencingAutoConfiguration.class,
                ShardedJobsAutoConfiguration.class,
                ShardingAlertsAutoConfiguration.class,
                ShardingEndpointAutoConfiguration.class,
                ShardingHealthAutoConfiguration.class,
                ShardingMetricsAutoConfiguration.class,
                ShardingObservationAutoConfiguration.class,
                ShardingConsoleAutoConfiguration.class,
                ShardingSanitizingAutoConfiguration.class);
    }
}
