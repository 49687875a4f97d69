package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** Two copies of one application on one ZooKeeper, as two pods of a service would run. */
class TwoInstancesApplicationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private final String namespace = TestZooKeeper.newNamespace();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void splitsTheItemsBetweenTwoInstancesAndMovesThemWhenOneCloses() {
        ConfigurableApplicationContext alpha = start("alpha");
        ConfigurableApplicationContext beta = start("beta");
        JobCoordinator alphaJob = job(alpha);
        JobCoordinator betaJob = job(beta);

        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaJob.assignment().epoch())
                    .isEqualTo(betaJob.assignment().epoch());
            assertThat(alphaJob.localItems()).hasSize(2);
            assertThat(betaJob.localItems()).hasSize(2);
            Set<Integer> all = new HashSet<>(alphaJob.localItems());
            all.addAll(betaJob.localItems());
            assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);
        });
        List<Integer> alphaItems = alphaJob.localItems();
        List<Integer> betaItems = betaJob.localItems();
        RecordingJob alphaRuns = alpha.getBean(RecordingJob.class);
        RecordingJob betaRuns = beta.getBean(RecordingJob.class);
        alphaRuns.executions().clear();
        betaRuns.executions().clear();
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaRuns.executedItems()).containsExactlyInAnyOrderElementsOf(alphaItems);
            assertThat(betaRuns.executedItems()).containsExactlyInAnyOrderElementsOf(betaItems);
        });

        alpha.close();

        betaRuns.executions().clear();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(betaJob.localItems()).containsExactly(0, 1, 2, 3));
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(betaRuns.executedItems()).containsAll(alphaItems));
        assertThat(betaJob.liveInstances()).containsExactly("beta");
    }

    @Test
    void handsAnItemStillRunningAtShutdownToTheOtherInstance() {
        ConfigurableApplicationContext alpha =
                start("alpha", HandOverService.class, "sharding.shutdown.grace-period=200ms");
        ConfigurableApplicationContext beta = start("beta", HandOverService.class);
        SlowOnAlpha alphaJob = alpha.getBean(SlowOnAlpha.class);
        await().atMost(PATIENCE).until(() -> alphaJob.blocked.getCount() == 0);

        alpha.close();

        ShardingOperations operations = beta.getBean(ShardingOperations.class);
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(operations.recentExecutions("handOver"))
                        .anySatisfy(execution -> {
                            assertThat(execution.source()).isEqualTo(ExecutionSource.FAILOVER);
                            assertThat(execution.instance()).isEqualTo("beta");
                            assertThat(execution.outcome()).isEqualTo(ExecutionRecord.Outcome.SUCCESS);
                        }));
        assertThat(alphaJob.interrupted).isTrue();
        assertThat(beta.getBean(MeterRegistry.class)
                        .get("sharding.job.failovers")
                        .tag("job", "handOver")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
    }

    @Test
    void closesOnlyOnceAnItemThatIgnoresItsInterruptReturnedAndOnlyThenHandsItOver() {
        // Virtual item threads are daemon threads: nothing but the close itself keeps them from outliving the session.
        ConfigurableApplicationContext alpha = start(
                "alpha",
                StubbornService.class,
                "sharding.shutdown.grace-period=200ms",
                "spring.threads.virtual.enabled=true");
        ConfigurableApplicationContext beta = start("beta", StubbornService.class);
        StubbornOnAlpha alphaJob = alpha.getBean(StubbornOnAlpha.class);
        StubbornOnAlpha betaJob = beta.getBean(StubbornOnAlpha.class);
        await().atMost(PATIENCE).until(() -> alphaJob.started.getCount() == 0);

        alpha.close();
        Instant closed = Instant.now();

        Instant alphaEnd = alphaJob.end;
        assertThat(alphaEnd)
                .as("the interrupted run returned before the context closed")
                .isNotNull();
        assertThat(closed).isAfterOrEqualTo(alphaEnd);
        assertThat(alphaJob.interrupted).isTrue();
        await().atMost(PATIENCE).until(() -> !betaJob.failoverStarts.isEmpty());
        assertThat(betaJob.failoverStarts)
                .allSatisfy(start -> assertThat(start)
                        .as("a take-over starts only after the run it takes over returned")
                        .isAfterOrEqualTo(alphaEnd));
    }

    private ConfigurableApplicationContext start(String instanceId) {
        return start(instanceId, Service.class);
    }

    private ConfigurableApplicationContext start(String instanceId, Class<?> service, String... more) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(service)
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(namespace, instanceId))
                .properties(more)
                .run();
        contexts.add(context);
        return context;
    }

    private static JobCoordinator job(ConfigurableApplicationContext context) {
        return context.getBean(ShardingOperations.class).job(RecordingJob.NAME).orElseThrow();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class HandOverService {

        @Bean
        SlowOnAlpha slowOnAlpha() {
            return new SlowOnAlpha();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StubbornService {

        @Bean
        StubbornOnAlpha stubbornOnAlpha() {
            return new StubbornOnAlpha();
        }
    }

    /** On alpha, its first run goes on for 3 s whatever interrupts it; elsewhere, runs record their take-overs. */
    static class StubbornOnAlpha {

        final CountDownLatch started = new CountDownLatch(1);

        final Queue<Instant> failoverStarts = new ConcurrentLinkedQueue<>();

        volatile boolean interrupted;

        volatile Instant end;

        @ShardedJob(name = "stubborn", cron = "* * * * * *", shardingTotalCount = 2, failover = true)
        void run(ShardingContext context) {
            if (context.source() == ExecutionSource.FAILOVER) {
                failoverStarts.add(Instant.now());
            }
            if (!context.instanceId().equals("alpha") || started.getCount() == 0) {
                return;
            }
            started.countDown();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < until) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            end = Instant.now();
        }
    }

    /** Blocks on instance alpha until interrupted; finishes at once anywhere else. */
    static class SlowOnAlpha {

        final CountDownLatch blocked = new CountDownLatch(1);

        volatile boolean interrupted;

        @ShardedJob(name = "handOver", cron = "* * * * * *", shardingTotalCount = 2, failover = true)
        void run(ShardingContext context) {
            if (!context.instanceId().equals("alpha")) {
                return;
            }
            blocked.countDown();
            try {
                new CountDownLatch(1).await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
    }
}
