package io.shardingjob.boot.autoconfigure;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Micrometer meters of the sharded jobs, when Micrometer is on the class path. */
@AutoConfiguration(after = ShardedJobsAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(ShardingOperations.class)
public final class ShardingMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShardingMetrics shardingMetrics() {
        return new ShardingMetrics();
    }
}
