package io.shardingjob.boot;

import io.shardingjob.core.config.JobConfiguration;

/**
 * Tweaks the configuration of a sharded job after the annotation and the {@code sharding.jobs.<name>.*} properties
 * have been applied, for values that are computed rather than configured. Customizer beans are applied in
 * {@link org.springframework.core.annotation.Order} order; the result is validated afterwards.
 */
@FunctionalInterface
public interface ShardedJobConfigurationCustomizer {

    void customize(String jobName, JobConfiguration.Builder configuration);
}
