package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.boot.actuate.ShardingHealthIndicator;
import io.shardingjob.boot.actuate.ShardingMetrics;
import io.shardingjob.boot.jobs.ShardedJobAnnotationBeanPostProcessor;
import io.shardingjob.boot.jobs.ShardedJobExecutors;
import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import io.shardingjob.core.testing.SettableClock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.curator.framework.imps.GzipCompressionProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class ShardingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(JobConfiguration.class)
            .withPropertyValues(TestZooKeeper.properties("auto-config-test"));

    @Test
    void runsAnnotatedMethodsAsShardedJobs() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(ShardingOperations.class).hasSingleBean(RegistryCenter.class);
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            assertThat(operations.instanceId()).isEqualTo("auto-config-test");
            assertThat(operations.isConnected()).isTrue();
            JobCoordinator job = operations.job(RecordingJob.NAME).orElseThrow();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(job.localItems()).containsExactly(0, 1, 2, 3));
            RecordingJob recording = context.getBean(RecordingJob.class);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(recording.executedItems()).containsExactlyInAnyOrder(0, 1, 2, 3));
            assertThat(recording.executions())
                    .anySatisfy(
                            execution -> assertThat(execution.itemParameter()).isEqualTo("Shanghai"));
            assertThat(recording.threads()).allMatch(name -> name.startsWith("sharding-item-"));
        });
    }

    @Test
    void coordinationWorkRunsOnAPoolOfItsOwnSoThatItCannotMakeCronTriggersLate() throws Exception {
        runner.withPropertyValues("sharding.coordination.pool-size=3").run(context -> {
            ShardedJobExecutors executors = context.getBean(ShardedJobExecutors.class);
            assertThat(executors.coordination())
                    .isNotSameAs(
                            ((org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler) executors.scheduler())
                                    .getScheduledExecutor());
            assertThat(((java.util.concurrent.ScheduledThreadPoolExecutor) executors.coordination()).getCorePoolSize())
                    .isEqualTo(3);
            // Coordination work blocked on ZooKeeper does not hold a trigger back.
            java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
            for (int thread = 0; thread < 3; thread++) {
                executors.coordination().execute(() -> {
                    try {
                        blocked.await();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            java.util.concurrent.CompletableFuture<String> trigger = new java.util.concurrent.CompletableFuture<>();
            executors
                    .scheduler()
                    .schedule(() -> trigger.complete(Thread.currentThread().getName()), Instant.now());
            assertThat(trigger.get(5, java.util.concurrent.TimeUnit.SECONDS)).startsWith("sharding-scheduler-");
            blocked.countDown();
        });
    }

    @Test
    void theJobsTellTimeByTheApplicationsClockBean() {
        Instant noon = Instant.parse("2030-01-01T12:00:00Z");
        SettableClock clock = new SettableClock(noon);
        runner.withBean(Clock.class, () -> clock).run(context -> {
            assertThat(context.getBean(ShardedJobExecutors.class).clock()).isSameAs(clock);
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            JobCoordinator job = operations.job(RecordingJob.NAME).orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> job.assignment().epoch() > 0);

            // An operator's fire is stamped with the coordinator's clock: the application's, standing at noon.
            assertThat(operations.trigger(RecordingJob.NAME, null)).contains(noon);
        });
    }

    @Test
    void configuresNothingWhenDisabled() {
        runner.withPropertyValues("sharding.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(ShardingOperations.class)
                        .doesNotHaveBean(RegistryCenter.class)
                        .doesNotHaveBean(ShardedJobAnnotationBeanPostProcessor.class)
                        .doesNotHaveBean(ShardingEndpoint.class)
                        .doesNotHaveBean(ShardingHealthIndicator.class)
                        .doesNotHaveBean(ShardingMetrics.class));
    }

    @Test
    void eachActuatorPartNeedsTheJobsAutoConfiguration() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ShardingEndpointAutoConfiguration.class,
                        ShardingHealthAutoConfiguration.class,
                        ShardingMetricsAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .doesNotHaveBean(ShardingEndpoint.class)
                        .doesNotHaveBean(ShardingHealthIndicator.class)
                        .doesNotHaveBean(ShardingMetrics.class));
    }

    @Test
    void startsNoEmbeddedZooKeeperByDefault() {
        runner.run(context -> assertThat(context).doesNotHaveBean(EmbeddedZooKeeper.class));
    }

    @Test
    void runsOnAnEmbeddedZooKeeperOnARandomPortWhenEnabled() {
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withUserConfiguration(JobConfiguration.class)
                .withPropertyValues(
                        "sharding.zookeeper.embedded.enabled=true",
                        "sharding.zookeeper.embedded.port=0",
                        "sharding.instance-id=embedded")
                .run(context -> {
                    EmbeddedZooKeeper server = context.getBean(EmbeddedZooKeeper.class);
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    assertThat(registry.connectString())
                            .isEqualTo(server.connectString())
                            .doesNotEndWith(":2181");
                    assertThat(registry.namespace()).isEqualTo("sharding");
                    RecordingJob recording = context.getBean(RecordingJob.class);
                    await().atMost(Duration.ofSeconds(10))
                            .untilAsserted(
                                    () -> assertThat(recording.executedItems()).hasSize(4));
                });
    }

    @Test
    void explainsWhatTheEmbeddedZooKeeperNeedsWhenItsLibrariesAreMissing() {
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withClassLoader(new FilteredClassLoader("org.xerial.snappy"))
                .withPropertyValues("sharding.zookeeper.embedded.enabled=true", "sharding.zookeeper.embedded.port=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sharding.zookeeper.embedded.enabled"));
    }

    @Test
    void refusesToStartTheJobsOnAClientACustomizerMadeCompressEveryNode() {
        runner.withBean(
                        CuratorFrameworkBuilderCustomizer.class,
                        () -> builder -> builder.compressionProvider(new GzipCompressionProvider())
                                .enableCompression())
                .run(context -> assertThat(
                                Stream.iterate(context.getStartupFailure(), Objects::nonNull, Throwable::getCause))
                        .filteredOn(IllegalArgumentException.class::isInstance)
                        .singleElement()
                        .satisfies(failure ->
                                assertThat(failure.getMessage()).contains("Job 'orderSync'", "enableCompression()")));
    }

    @Test
    void explainsAnEmbeddedZooKeeperPortInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            new ApplicationContextRunner()
                    .withConfiguration(ShardingAutoConfigurations.all())
                    .withPropertyValues(
                            "sharding.zookeeper.embedded.enabled=true",
                            "sharding.zookeeper.embedded.port=" + taken.getLocalPort())
                    .run(context -> assertThat(
                                    Stream.iterate(context.getStartupFailure(), Objects::nonNull, Throwable::getCause))
                            .filteredOn(InvalidConfigurationPropertyValueException.class::isInstance)
                            .singleElement()
                            .satisfies(failure ->
                                    assertThat(failure.getMessage()).contains("sharding.zookeeper.embedded.port")));
        }
    }

    @Test
    void takesTheNamespaceFromTheApplicationName() {
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withPropertyValues(
                        "sharding.zookeeper.connect-string=" + TestZooKeeper.connectString(),
                        "spring.application.name=billing")
                .run(context -> assertThat(context.getBean(RegistryCenter.class).namespace())
                        .isEqualTo("billing"));
    }

    @Test
    void failsWithoutAConnectStringWhenNoEmbeddedZooKeeperRuns() {
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("sharding.zookeeper.connect-string"));
    }

    @Test
    void backsOffWhenTheUserDefinesTheBeans() {
        runner.withUserConfiguration(UserBeans.class).run(context -> {
            assertThat(context.getBean(RegistryCenter.class)).isSameAs(context.getBean("userRegistry"));
            assertThat(context.getBean(ShardingStrategies.class)).isSameAs(context.getBean("userStrategies"));
            assertThat(context.getBean(ShardedJobExecutors.class)).isSameAs(context.getBean("userExecutors"));
            assertThat(context).doesNotHaveBean(ShardingHealthIndicator.class);
            assertThat(context.getBean(ShardingMetrics.class)).isSameAs(context.getBean("userMetrics"));
            RecordingJob recording = context.getBean(RecordingJob.class);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(recording.threads()).contains("user-item"));
        });
    }

    @Test
    void backsOffWhenTheUserDefinesTheEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=sharding")
                .withUserConfiguration(UserEndpoint.class)
                .run(context ->
                        assertThat(context.getBean(ShardingEndpoint.class)).isSameAs(context.getBean("userEndpoint")));
    }

    @Test
    void exposesTheEndpointOnlyWhenItIsAvailable() {
        runner.run(context -> assertThat(context).doesNotHaveBean(ShardingEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=sharding")
                .run(context -> assertThat(context).hasSingleBean(ShardingEndpoint.class));
    }

    @Test
    void hasNoEndpointWithoutActuatorOnTheClassPath() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=sharding")
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(ShardingOperations.class)
                        .doesNotHaveBean(ShardingEndpoint.class));
    }

    @Test
    void hasNoHealthIndicatorWithoutSpringBootHealthOnTheClassPath() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(ShardingOperations.class)
                        .doesNotHaveBean(ShardingHealthIndicator.class));
    }

    @Test
    void hasNoHealthIndicatorWhenItIsDisabled() {
        runner.withPropertyValues("management.health.sharding.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ShardingHealthIndicator.class));
    }

    @Test
    void reportsHealthUpOnceEveryJobHasALeaderAndACompleteAssignment() {
        runner.run(context -> {
            ShardingHealthIndicator indicator = context.getBean(ShardingHealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                Health health = indicator.health();
                assertThat(health.getStatus().getCode()).isEqualTo("UP");
                assertThat(health.getDetails())
                        .containsEntry("connected", true)
                        .containsEntry("instanceId", "auto-config-test");
                assertThat(health.getDetails().get("jobs").toString())
                        .contains("orderSync", "leader=auto-config-test", "assignment=complete");
                assertThat(health.getDetails().get("clockSkew").toString())
                        .contains("exceeded=false", "maxClockSkewMillis=5000");
                assertThat(health.getDetails()).doesNotContainKey("warnings");
            });
        });
    }

    @Test
    void hasNoMetricsWithoutMicrometerOnTheClassPath() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(ShardingOperations.class)
                        .doesNotHaveBean(ShardingMetrics.class));
    }

    @Test
    void referencesStrategyBeansByName() {
        runner.withUserConfiguration(ReverseStrategyConfiguration.class)
                .withPropertyValues("sharding.jobs.orderSync.strategy=everything-to-the-last")
                .run(context -> {
                    JobCoordinator job = context.getBean(ShardingOperations.class)
                            .job(RecordingJob.NAME)
                            .orElseThrow();
                    assertThat(job.configuration().strategy()).isEqualTo("everything-to-the-last");
                    await().atMost(Duration.ofSeconds(10))
                            .untilAsserted(() -> assertThat(job.localItems()).containsExactly(0, 1, 2, 3));
                });
    }

    @Test
    void letsPropertiesOverrideTheAnnotationAndCustomizersOverrideBoth() {
        runner.withUserConfiguration(CustomizerConfiguration.class)
                .withPropertyValues(
                        "sharding.jobs.orderSync.sharding-total-count=2",
                        "sharding.jobs.orderSync.sharding-item-parameters=0=north,1=south",
                        "sharding.jobs.orderSync.time-zone=Asia/Shanghai",
                        "sharding.jobs.orderSync.job-parameter=from-properties")
                .run(context -> {
                    io.shardingjob.core.config.JobConfiguration configuration = context.getBean(
                                    ShardingOperations.class)
                            .job(RecordingJob.NAME)
                            .orElseThrow()
                            .configuration();
                    assertThat(configuration.shardingTotalCount()).isEqualTo(2);
                    assertThat(configuration.itemParameters().get(1)).isEqualTo("south");
                    assertThat(configuration.timeZone().getId()).isEqualTo("Asia/Shanghai");
                    assertThat(configuration.cron()).isEqualTo("* * * * * *");
                    assertThat(configuration.jobParameter()).isEqualTo("from-customizer");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class JobConfiguration {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserBeans {

        @Bean(destroyMethod = "close")
        RegistryCenter userRegistry() {
            RegistryCenter registry = new RegistryCenter(
                    RegistryConfiguration.of(TestZooKeeper.connectString(), TestZooKeeper.newNamespace()));
            registry.start();
            return registry;
        }

        @Bean
        ShardingStrategies userStrategies() {
            return ShardingStrategies.builtIns();
        }

        @Bean(destroyMethod = "close")
        ShardedJobExecutors userExecutors() {
            org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler scheduler =
                    new org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler();
            scheduler.initialize();
            return new ShardedJobExecutors(
                    scheduler, Runnable::run, runnable -> new Thread(runnable, "user-item").start());
        }

        @Bean
        HealthIndicator shardingHealthIndicator() {
            return () -> Health.up().withDetail("mine", true).build();
        }

        @Bean
        ShardingMetrics userMetrics() {
            return new ShardingMetrics();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserEndpoint {

        @Bean
        ShardingEndpoint userEndpoint(ShardingOperations operations) {
            return new ShardingEndpoint(operations);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ReverseStrategyConfiguration {

        /** Gives every item to the last instance: recognisable, and valid. */
        @Bean
        ShardingStrategy everythingToTheLast() {
            return new ShardingStrategy() {
                @Override
                public String name() {
                    return "everything-to-the-last";
                }

                @Override
                public Map<String, List<Integer>> shard(io.shardingjob.core.sharding.strategy.ShardingRequest request) {
                    Map<String, List<Integer>> assignment = new LinkedHashMap<>();
                    request.instances().forEach(instance -> assignment.put(instance, List.of()));
                    List<Integer> all = java.util.stream.IntStream.range(0, request.shardingTotalCount())
                            .boxed()
                            .toList();
                    assignment.put(request.instances().get(request.instances().size() - 1), all);
                    return assignment;
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfiguration {

        @Bean
        ShardedJobConfigurationCustomizer jobParameterCustomizer() {
            return (jobName, configuration) -> configuration.jobParameter("from-customizer");
        }
    }
}
