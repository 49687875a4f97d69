package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.actuate.ShardingHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sharding} health indicator, when Spring Boot's health module is on the class path and
 * {@code management.health.sharding.enabled} is not false.
 */
@AutoConfiguration(after = ShardedJobsAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ShardingOperations.class)
public final class ShardingHealthAutoConfiguration {

    /** Conditions that need the optional classes sit on the bean method: Spring loads a class's conditions together. */
    @Bean
    @ConditionalOnMissingBean(name = "shardingHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("sharding")
    ShardingHealthIndicator shardingHealthIndicator(ShardingOperations operations) {
        return new ShardingHealthIndicator(operations);
    }
}
