package io.shardingjob.boot.autoconfigure;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingMetrics;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
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
    ShardingMetrics shardingMetrics(ObjectProvider<RegistryCenter> registry) {
        // Asked for when the first job starts, on the registry it started on: its client's requests are counted.
        return new ShardingMetrics(Clock.systemUTC(), () -> {
            RegistryCenter connected = registry.getIfUnique();
            return connected == null ? null : connected.client();
        });
    }
}
