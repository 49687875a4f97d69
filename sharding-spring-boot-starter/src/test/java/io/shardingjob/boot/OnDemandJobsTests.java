package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.actuate.JobDescriptor;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Jobs on demand on a real ZooKeeper: a job declared without a cron, or whose cron the properties set to {@code -},
 * starts, is sharded and fires only when triggered; a cron given to it at run time starts its schedule, and {@code -}
 * stops it again, without a restart.
 */
class OnDemandJobsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** Two fires of a cron of every second, and several periodic checks of the schedule (every 500 ms here). */
    private static final Duration A_FEW_SECONDS = Duration.ofMillis(2_500);

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private static final Queue<Run> RUNS = new ConcurrentLinkedQueue<>();

    private record Run(String job, int item, Instant fireTime) {}

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
        RUNS.clear();
    }

    @Test
    void
            jobsWithoutACronInTheAnnotationOrTheirPropertiesStartShardedFireNeverByThemselvesAndRunEachItemOnceWhenTriggered() {
        ConfigurableApplicationContext context = start("sharding.jobs.byProperty.cron=-");
        ShardingOperations operations = context.getBean(ShardingOperations.class);

        assertThat(operations.jobs())
                .extracting(io.shardingjob.core.JobCoordinator::jobName)
                .contains("byAnnotation", "byProperty");
        for (String job : List.of("byAnnotation", "byProperty")) {
            JobConfiguration configuration = operations.job(job).orElseThrow().configuration();
            assertThat(configuration.isOnDemand()).as(job).isTrue();
            assertThat(configuration.cron()).as(job).isEqualTo("-");
            assertThat(operations.nextFireTime(job)).as(job).isEmpty();
        }
        // Not a scheduled task, as Spring lists no task for @Scheduled(cron = "-").
        assertThat(context.getBean(RunningJobs.class).getScheduledTasks()).isEmpty();
        await().during(A_FEW_SECONDS).atMost(A_FEW_SECONDS.plus(PATIENCE)).until(RUNS::isEmpty);

        Instant byAnnotation = operations.trigger("byAnnotation", null).orElseThrow();
        Instant byProperty = operations.trigger("byProperty", "by hand").orElseThrow();

        await().atMost(PATIENCE).until(() -> RUNS.size() == 5);
        assertThat(RUNS)
                .filteredOn(run -> run.job().equals("byAnnotation"))
                .allSatisfy(run -> assertThat(run.fireTime()).isEqualTo(byAnnotation))
                .extracting(Run::item)
                .containsExactlyInAnyOrder(0, 1, 2);
        assertThat(RUNS)
                .filteredOn(run -> run.job().equals("byProperty"))
                .allSatisfy(run -> assertThat(run.fireTime()).isEqualTo(byProperty))
                .extracting(Run::item)
                .containsExactlyInAnyOrder(0, 1);
        await().during(A_FEW_SECONDS).atMost(A_FEW_SECONDS.plus(PATIENCE)).until(() -> RUNS.size() == 5);
    }

    @Test
    void theEndpointShowsAJobOnDemandWithItsStoredCronAndSaysSo() {
        ConfigurableApplicationContext context = start("management.endpoints.web.exposure.include=sharding");
        ShardingEndpoint endpoint = context.getBean(ShardingEndpoint.class);

        JobDescriptor descriptor = endpoint.job("byAnnotation");

        assertThat(descriptor).isNotNull();
        assertThat(descriptor.cron()).isEqualTo("-");
        assertThat(descriptor.onDemand()).isTrue();
        assertThat(endpoint.job("byProperty").onDemand()).isFalse();
        assertThat(endpoint.sharding().jobs())
                .filteredOn(job -> job.name().equals("byAnnotation"))
                .singleElement()
                .satisfies(job -> {
                    assertThat(job.cron()).isEqualTo("-");
                    assertThat(job.onDemand()).isTrue();
                });
    }

    @Test
    void aCronGivenToAJobOnDemandStartsItFiringAndTakingItBackStopsIt() {
        ConfigurableApplicationContext context = start();
        ShardedJobRegistry registry = context.getBean(ShardedJobRegistry.class);
        ShardingOperations operations = context.getBean(ShardingOperations.class);
        registry.registerHandler("export", job -> RUNS.add(new Run("export", job.item(), job.fireTime())));
        registry.define(JobConfiguration.builder("export").shardingTotalCount(2).build(), "export");
        await().atMost(PATIENCE).until(() -> operations.job("export").isPresent());
        assertThat(operations.nextFireTime("export")).isEmpty();

        registry.updateCron("export", "* * * * * *");

        await().atMost(PATIENCE).until(() -> firesOf("export").size() >= 2);
        assertThat(operations.nextFireTime("export")).isPresent();

        assertThat(registry.updateCron("export", "-").isOnDemand()).isTrue();

        await().atMost(PATIENCE).until(() -> operations.nextFireTime("export").isEmpty());
        Instant stopped = Instant.now();
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(PATIENCE))
                .until(() -> firesOf("export").stream().noneMatch(fire -> fire.isAfter(stopped)));
        // Triggered, it still runs.
        Instant triggered = operations.trigger("export", null).orElseThrow();
        await().atMost(PATIENCE)
                .until(() -> RUNS.stream()
                                .filter(run -> run.fireTime().equals(triggered))
                                .count()
                        == 2);
    }

    @Test
    void aJobDeclaredOnDemandStartsFiringOnceAnOperatorGivesItACron() {
        ConfigurableApplicationContext context = start();
        ShardedJobRegistry registry = context.getBean(ShardedJobRegistry.class);
        ShardingOperations operations = context.getBean(ShardingOperations.class);

        registry.updateCron("byAnnotation", "* * * * * *");

        await().atMost(PATIENCE).until(() -> firesOf("byAnnotation").size() >= 2);
        assertThat(operations.nextFireTime("byAnnotation")).isPresent();
    }

    private List<Instant> firesOf(String job) {
        return RUNS.stream()
                .filter(run -> run.job().equals(job))
                .map(Run::fireTime)
                .distinct()
                .toList();
    }

    private ConfigurableApplicationContext start(String... more) {
        List<String> properties = new ArrayList<>(List.of(TestZooKeeper.properties("on-demand")));
        properties.addAll(List.of(more));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Service.class)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        @ShardedJob(name = "byAnnotation", shardingTotalCount = 3)
        void byAnnotation(ShardingContext context) {
            RUNS.add(new Run("byAnnotation", context.item(), context.fireTime()));
        }

        @ShardedJob(name = "byProperty", cron = "0 0 0 1 1 *", shardingTotalCount = 2)
        void byProperty(ShardingContext context) {
            RUNS.add(new Run("byProperty", context.item(), context.fireTime()));
        }
    }
}
