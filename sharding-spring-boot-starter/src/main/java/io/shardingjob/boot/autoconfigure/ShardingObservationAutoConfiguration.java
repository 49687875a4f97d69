package io.shardingjob.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.observation.ShardingFireObservationConvention;
import io.shardingjob.boot.observation.ShardingItemObservationConvention;
import io.shardingjob.boot.observation.ShardingObservations;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * {@code sharding.fire} and {@code sharding.item} observations through the application's {@link ObservationRegistry}
 * (Spring Boot makes one when Micrometer's observation API and Actuator are on the class path), so that tracing and
 * observation-based metrics see every fire and item run with no code of yours. A
 * {@link ShardingFireObservationConvention} or {@link ShardingItemObservationConvention} bean changes their names and
 * key values.
 */
@AutoConfiguration(
        after = ShardedJobsAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ObservationRegistry.class, ShardingOperations.class})
public final class ShardingObservationAutoConfiguration {

    @Bean
    ShardingObservations shardingObservations(
            ObservationRegistry registry,
            ObjectProvider<ShardingFireObservationConvention> fireConvention,
            ObjectProvider<ShardingItemObservationConvention> itemConvention) {
        return new ShardingObservations(registry, fireConvention.getIfUnique(), itemConvention.getIfUnique());
    }
}
