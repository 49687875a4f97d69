package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardedJobCompletionListener;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.alerts.AlertHistory;
import io.shardingjob.boot.alerts.ShardingAlerts;
import io.shardingjob.boot.executionlog.ExecutionHistory;
import io.shardingjob.boot.executionlog.ExecutionLog;
import io.shardingjob.boot.executionlog.JdbcExecutionLog;
import io.shardingjob.boot.jobs.DefaultShardingOperations;
import io.shardingjob.boot.jobs.ItemExecutorDecorator;
import io.shardingjob.boot.jobs.JobListeners;
import io.shardingjob.boot.jobs.ReadinessHandOff;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.boot.jobs.RuntimeJobs;
import io.shardingjob.boot.jobs.ShardedJobAnnotationBeanPostProcessor;
import io.shardingjob.boot.jobs.ShardedJobExecutors;
import io.shardingjob.core.execution.MisfireListener;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Runs every {@code @ShardedJob} method of the application as a sharded job: finds the methods, resolves each job's
 * configuration (the annotation, then {@code sharding.jobs.<name>.*}, then the customizers), and starts and stops the
 * jobs with the context, on threads whose number does not grow with the number of jobs.
 *
 * <p>Time (the crons' fire times, the time fires and claims are stamped with) comes from the application's {@link Clock}
 * bean when it has one, the system clock otherwise: one clock for the schedules and the ledger, which a test can move.
 */
@AutoConfiguration(
        after = {
            ShardingRegistryAutoConfiguration.class,
            ShardingJdbcExecutionLogAutoConfiguration.class,
            ApplicationAvailabilityAutoConfiguration.class
        })
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardedJobsAutoConfiguration {

    /** Static, as bean post-processors must be, so that it does not pull this configuration in early. */
    @Bean
    static ShardedJobAnnotationBeanPostProcessor shardedJobAnnotationBeanPostProcessor() {
        return new ShardedJobAnnotationBeanPostProcessor();
    }

    /** The built-in strategies, those registered with ServiceLoader, and every {@code ShardingStrategy} bean. */
    @Bean
    @ConditionalOnMissingBean
    ShardingStrategies shardingStrategies(ObjectProvider<ShardingStrategy> strategies) {
        return ShardingStrategies.defaults().with(strategies.orderedStream().toArray(ShardingStrategy[]::new));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ShardedJobExecutors shardedJobExecutors(
            ShardingProperties properties, Environment environment, ObjectProvider<Clock> clock) {
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        int schedulerThreads = properties.getScheduler().getPoolSize();
        int coordinationThreads = properties.getCoordination().getPoolSize();
        ExecutionProperties execution = properties.getExecution();
        return Threading.VIRTUAL.isActive(environment)
                ? ShardedJobExecutors.virtual(
                        schedulerThreads,
                        coordinationThreads,
                        execution.getMaxConcurrentFires(),
                        execution.getPoolSize(),
                        time)
                : ShardedJobExecutors.platform(
                        schedulerThreads,
                        coordinationThreads,
                        execution.getMaxConcurrentFires(),
                        execution.getPoolSize(),
                        time);
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
            ObjectProvider<ShardedJobCompletionListener> completionListeners,
            ObjectProvider<ItemExecutorDecorator> decorators,
            ObjectProvider<ShardingAlerts> alerts) {
        JobListeners listeners = new JobListeners(
                () -> fireListeners.orderedStream().toList(),
                () -> completionListeners.orderedStream().toList(),
                () -> alerts.orderedStream()
                        .<MisfireListener>map(raiser -> raiser)
                        .toList());
        ShardingProperties.Coordination coordination = properties.getCoordination();
        RunningJobs.Timings timings = new RunningJobs.Timings(
                coordination.getStartTimeout(),
                coordination.getReconcileInterval(),
                coordination.getShardingWaitTimeout(),
                properties.getShutdown().getGracePeriod());
        return new RunningJobs(
                timings,
                strategies,
                executors,
                listeners,
                () -> decorators.orderedStream().toList());
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
            ShardedJobExecutors executors,
            RuntimeJobs runtimeJobs,
            Environment environment) {
        JobConfigurationResolver resolver = new JobConfigurationResolver(
                properties, strategies, customizers.orderedStream().toList(), discovery::resolve);
        return new ShardedJobLifecycle(
                discovery,
                resolver,
                properties,
                registry::getObject,
                () -> listeners.orderedStream().toList(),
                jobs,
                executors,
                runtimeJobs,
                environment);
    }

    /**
     * Jobs defined while the service runs. A removal waits for the instances to stop the job for up to a grace period
     * and a session timeout (an instance that died meanwhile leaves by its session) before it deletes the job's state.
     */
    @Bean
    RuntimeJobs shardedJobRegistry(RunningJobs jobs, ShardingProperties properties) {
        return new RuntimeJobs(
                jobs,
                properties
                        .getShutdown()
                        .getGracePeriod()
                        .plus(properties.getZookeeper().getSessionTimeout()));
    }

    /**
     * Reads the JDBC execution log when there is one, the in-memory history otherwise; the alerts from their in-memory
     * history when alerts are on.
     */
    @Bean
    @ConditionalOnMissingBean
    ShardingOperations shardingOperations(
            RunningJobs jobs,
            ExecutionHistory history,
            ObjectProvider<JdbcExecutionLog> jdbcLog,
            ObjectProvider<AlertHistory> alerts) {
        ExecutionLog log = jdbcLog.getIfAvailable();
        return new DefaultShardingOperations(jobs, history, log != null ? log : history, () -> {
            AlertHistory kept = alerts.getIfAvailable();
            return kept != null ? kept.recent() : List.of();
        });
    }

    /**
     * Jobs take items only while the application is ready, when Boot keeps its availability states (without them no
     * readiness is ever published, and the jobs would wait for it forever).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(ApplicationAvailability.class)
    @ConditionalOnBooleanProperty(name = "sharding.availability.enabled", matchIfMissing = true)
    static class ReadinessConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ReadinessHandOff shardedJobsReadinessHandOff(ApplicationAvailability availability, RunningJobs jobs) {
            return new ReadinessHandOff(availability, jobs);
        }
    }
}
