package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.actuate.JobDescriptor;
import io.shardingjob.boot.actuate.JobSummary;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Jobs that follow jobs, on a real ZooKeeper: {@code after}, {@code on} and {@code itemWise} come from the annotation
 * and the properties, the graph of the application's jobs and the namespace's is checked before any job starts and
 * before a job is defined at run time, and the endpoint shows who follows whom.
 */
class JobsFollowingJobsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("following-test"))
            .withPropertyValues("management.endpoints.web.exposure.include=sharding");

    @Test
    void theAnnotationAndThePropertiesGiveEachJobWhatItFollowsAndTheEndpointShowsItsFollowers() {
        runner.withUserConfiguration(ChainConfiguration.class)
                .withPropertyValues(
                        "sharding.jobs.report.after=extract, load",
                        "sharding.jobs.report.on=completion",
                        "sharding.jobs.report.sharding-total-count=2",
                        "sharding.jobs.report.item-wise=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ShardingOperations operations = context.getBean(ShardingOperations.class);
                    JobConfiguration load = operations.job("load").orElseThrow().configuration();
                    JobConfiguration report =
                            operations.job("report").orElseThrow().configuration();
                    assertThat(load.after()).containsExactly("extract");
                    assertThat(load.on()).isEqualTo(FollowOn.COMPLETION);
                    assertThat(load.itemWise()).isTrue();
                    assertThat(report.after()).containsExactly("extract", "load");
                    assertThat(report.on()).isEqualTo(FollowOn.COMPLETION);
                    assertThat(report.itemWise()).isFalse();

                    ShardingEndpoint endpoint = context.getBean(ShardingEndpoint.class);
                    Map<String, JobSummary> summaries = endpoint.sharding().jobs().stream()
                            .collect(Collectors.toMap(JobSummary::name, Function.identity()));
                    assertThat(summaries.get("extract").after()).isEmpty();
                    assertThat(summaries.get("extract").on()).isEqualTo("success");
                    assertThat(summaries.get("extract").itemWise()).isFalse();
                    assertThat(summaries.get("extract").followers()).containsExactly("load", "report");
                    assertThat(summaries.get("report").after()).containsExactly("extract", "load");
                    assertThat(summaries.get("report").on()).isEqualTo("completion");
                    assertThat(summaries.get("report").itemWise()).isFalse();
                    assertThat(summaries.get("report").followers()).isEmpty();
                    JobDescriptor descriptor = endpoint.job("load");
                    assertThat(descriptor.after()).containsExactly("extract");
                    assertThat(descriptor.on()).isEqualTo("completion");
                    assertThat(descriptor.itemWise()).isTrue();
                    assertThat(descriptor.followers()).containsExactly("report");
                });
    }

    @Test
    void aCycleAcrossTwoAnnotatedJobsFailsStartUpNamingTheCycleAndTheProperty() {
        FailureAnalysis analysis = analyze(runner.withUserConfiguration(CycleConfiguration.class));

        assertThat(analysis.getDescription())
                .contains("Sharded job 'ping'", "invalid after", "'ping' is in a cycle: ping -> pong -> ping")
                .endsWith("Property: sharding.jobs.ping.after");
        assertThat(analysis.getAction())
                .contains("Set sharding.jobs.ping.after (or @ShardedJob(after) on ", "Cycle.ping()")
                .contains("jobs that do not follow 'ping'", "ping -> pong -> ping");
    }

    @Test
    void aJobFollowingAJobNeitherOfTheApplicationNorOfTheNamespaceFailsStartUp() {
        FailureAnalysis analysis = analyze(runner.withUserConfiguration(ChainConfiguration.class)
                .withPropertyValues("sharding.jobs.report.after=extract,nowhere"));

        assertThat(analysis.getDescription())
                .contains(
                        "Sharded job 'report'",
                        "follows 'nowhere', which is no job of this application nor stored in the namespace")
                .endsWith("Property: sharding.jobs.report.after");
        assertThat(analysis.getAction()).contains("Set sharding.jobs.report.after");
    }

    @Test
    void anItemWiseJobWithAnotherItemCountThanItsUpstreamFailsStartUp() {
        FailureAnalysis analysis = analyze(runner.withUserConfiguration(ChainConfiguration.class)
                .withPropertyValues("sharding.jobs.load.sharding-total-count=3"));

        assertThat(analysis.getDescription())
                .contains("Sharded job 'load'", "'load' has 3 items and follows 'extract', which has 2")
                .endsWith("Property: sharding.jobs.load.item-wise");
        assertThat(analysis.getAction()).contains("Set sharding.jobs.load.item-wise", "false");
    }

    @Test
    void aBadFollowOnValueFailsStartUpNamingTheProperty() {
        runner.withUserConfiguration(ChainConfiguration.class)
                .withPropertyValues("sharding.jobs.report.on=sometimes")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("sharding.jobs.report.on")
                        .hasStackTraceContaining("sometimes"));
    }

    @Test
    void aJobMayFollowAJobOfAnotherServiceStoredInTheNamespace() {
        String namespace = TestZooKeeper.newNamespace();
        new ApplicationContextRunner()
                .withConfiguration(ShardingAutoConfigurations.all())
                .withPropertyValues(TestZooKeeper.properties(namespace, "upstream-service"))
                .withUserConfiguration(ChainConfiguration.class)
                .run(upstream -> {
                    assertThat(upstream).hasNotFailed();
                    new ApplicationContextRunner()
                            .withConfiguration(ShardingAutoConfigurations.all())
                            .withPropertyValues(TestZooKeeper.properties(namespace, "downstream-service"))
                            .withUserConfiguration(DownstreamConfiguration.class)
                            .run(downstream -> {
                                assertThat(downstream).hasNotFailed();
                                assertThat(downstream
                                                .getBean(ShardingOperations.class)
                                                .followers())
                                        .containsEntry("report", List.of("audit"));
                                assertThat(upstream.getBean(ShardingOperations.class)
                                                .followers())
                                        .containsEntry("report", List.of("audit"));
                            });
                });
    }

    @Test
    void aDefinitionAtRunTimeThatWouldCloseACycleIsRefusedAndLeavesEveryOtherJobAsItWas() {
        runner.withUserConfiguration(ChainConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            ShardedJobRegistry registry = context.getBean(ShardedJobRegistry.class);
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            CuratorFramework client = context.getBean(RegistryCenter.class).client();
            // A job another service stored long ago, following one that no longer exists.
            client.create()
                    .creatingParentsIfNeeded()
                    .forPath(
                            "/settle/config",
                            JobConfigurationCodec.encode(JobConfiguration.builder("settle")
                                    .after("reconcile")
                                    .build()));
            Map<String, JobConfiguration> before = configurations(operations);
            registry.registerHandler("h", item -> {});

            assertThatThrownBy(() -> registry.define(
                            JobConfiguration.builder("reconcile")
                                    .after("settle")
                                    .build(),
                            "h"))
                    .isInstanceOf(JobConfigurationException.class)
                    .hasMessageContaining("'reconcile'")
                    .hasMessageContaining("after")
                    .hasMessageContaining("is in a cycle: reconcile -> settle -> reconcile");
            assertThatThrownBy(() -> registry.define(
                            JobConfiguration.builder("unload")
                                    .after("load")
                                    .itemWise(true)
                                    .shardingTotalCount(3)
                                    .build(),
                            "h"))
                    .isInstanceOf(JobConfigurationException.class)
                    .hasMessageContaining("'unload'")
                    .hasMessageContaining("itemWise")
                    .hasMessageContaining("has 3 items and follows 'load', which has 2");

            assertThat(registry.definedJobs()).isEmpty();
            assertThat(client.checkExists().forPath("/reconcile")).isNull();
            assertThat(client.checkExists().forPath("/unload")).isNull();
            assertThat(configurations(operations)).isEqualTo(before);

            registry.define(
                    JobConfiguration.builder("unload")
                            .after("load")
                            .on(FollowOn.COMPLETION)
                            .itemWise(true)
                            .shardingTotalCount(2)
                            .build(),
                    "h");
            await().atMost(PATIENCE).until(() -> operations.job("unload").isPresent());
            JobConfiguration unload = operations.job("unload").orElseThrow().configuration();
            assertThat(unload.after()).containsExactly("load");
            assertThat(unload.on()).isEqualTo(FollowOn.COMPLETION);
            assertThat(unload.itemWise()).isTrue();
            assertThat(context.getBean(ShardingEndpoint.class).job("load").followers())
                    .containsExactly("unload");
        });
    }

    private static Map<String, JobConfiguration> configurations(ShardingOperations operations) {
        return operations.jobs().stream()
                .collect(Collectors.toMap(
                        job -> job.jobName(),
                        job -> job.configuration(),
                        (left, right) -> left,
                        java.util.TreeMap::new));
    }

    private static FailureAnalysis analyze(ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run((AssertableApplicationContext context) -> {
            assertThat(context).hasFailed();
            analysis[0] = new ShardedJobFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }

    /** Three jobs on demand: load follows extract item by item, report follows nothing unless the properties say. */
    static class Chain {

        @ShardedJob(name = "extract", shardingTotalCount = 2)
        void extract() {}

        @ShardedJob(name = "load", after = "extract", on = FollowOn.COMPLETION, itemWise = true, shardingTotalCount = 2)
        void load(ShardingContext context) {}

        @ShardedJob(name = "report")
        void report() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ChainConfiguration {

        @Bean
        Chain chain() {
            return new Chain();
        }
    }

    static class Cycle {

        @ShardedJob(name = "ping", after = "pong")
        void ping() {}

        @ShardedJob(name = "pong", after = "ping")
        void pong() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class CycleConfiguration {

        @Bean
        Cycle cycle() {
            return new Cycle();
        }
    }

    /** Another service's job, following the chain's report. */
    static class Downstream {

        @ShardedJob(name = "audit", after = "report")
        void audit() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class DownstreamConfiguration {

        @Bean
        Downstream downstream() {
            return new Downstream();
        }
    }
}
