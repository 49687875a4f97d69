package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * What an operator changes while one of two copies stands by (its readiness refused): the readiness and the operator
 * each keep their say, so that an instance takes items only when it is both ready and enabled, and the job's own state
 * (disabled, its item count) ends where the operator left it.
 */
class ReadinessAndOperatorChangesTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static final Duration HELD = Duration.ofSeconds(3);

    /** Every run of every copy, as each copy's listener reports it. */
    private static final Queue<ExecutionRecord> RUNS = new ConcurrentLinkedQueue<>();

    private final String namespace = TestZooKeeper.newNamespace();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private ConfigurableApplicationContext alpha;

    private JobCoordinator alphaJob;

    private JobCoordinator betaJob;

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
        RUNS.clear();
    }

    @Test
    void anInstanceAnOperatorDisabledStaysDisabledAfterItResumes() {
        startTwoCopies();
        betaJob.disableInstance("alpha");
        awaitAllItemsOnBetaOnly(4);

        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);
        await().atMost(PATIENCE).until(() -> betaJob.leavingInstances().contains("alpha"));
        AvailabilityChangeEvent.publish(alpha, ReadinessState.ACCEPTING_TRAFFIC);
        await().atMost(PATIENCE).until(() -> betaJob.leavingInstances().isEmpty());

        assertThat(alphaJob.isStandingBy()).isFalse();
        Instant resumed = Instant.now();
        await().during(HELD).atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaJob.disabledInstances()).containsExactly("alpha");
            assertThat(betaJob.assignment().itemsByInstance()).containsOnlyKeys("beta");
            assertThat(alphaJob.localItems()).isEmpty();
        });
        assertThat(runsOf("alpha"))
                .as("no fire after the resume runs on the disabled instance")
                .allSatisfy(run -> assertThat(run.fireTime()).isBefore(resumed));
    }

    @Test
    void anOperatorsEnableWhileAnInstanceStandsByGivesItNoItemsBeforeItIsReady() {
        startTwoCopies();
        betaJob.disableInstance("alpha");
        awaitAllItemsOnBetaOnly(4);
        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);
        await().atMost(PATIENCE).until(() -> betaJob.leavingInstances().contains("alpha"));

        betaJob.enableInstance("alpha");

        await().atMost(PATIENCE).until(() -> alphaJob.disabledInstances().isEmpty());
        Instant enabled = Instant.now();
        await().during(HELD).atMost(PATIENCE).untilAsserted(() -> {
            assertThat(betaJob.assignment().itemsByInstance()).containsOnlyKeys("beta");
            assertThat(alphaJob.localItems()).isEmpty();
        });
        assertThat(runsOf("alpha"))
                .as("no fire runs on the instance enabled while it is not ready")
                .allSatisfy(run -> assertThat(run.fireTime()).isBefore(enabled));

        AvailabilityChangeEvent.publish(alpha, ReadinessState.ACCEPTING_TRAFFIC);

        awaitSplit(4);
        Instant ready = Instant.now();
        await().atMost(PATIENCE).until(() -> firesRunBy("alpha", ready) >= 2);
    }

    @Test
    void aJobDisabledEnabledAndResizedWhileAnInstanceStandsByRunsOnTheReadyOneOnlyAndSplitsAfterTheResume() {
        startTwoCopies();
        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);
        awaitAllItemsOnBetaOnly(4);
        Instant refused = Instant.now();

        assertThat(betaJob.updateDisabled(true)).isTrue();
        await().atMost(PATIENCE)
                .until(() -> alphaJob.configuration().disabled()
                        && betaJob.configuration().disabled());
        assertThat(betaJob.updateDisabled(false)).isTrue();
        betaJob.updateShardingTotalCount(6);

        awaitAllItemsOnBetaOnly(6);
        await().atMost(PATIENCE)
                .until(() -> !alphaJob.configuration().disabled()
                        && alphaJob.configuration().shardingTotalCount() == 6);
        Instant resized = Instant.now();
        await().atMost(PATIENCE).until(() -> firesRunBy("beta", resized.plusSeconds(1)) >= 3);
        assertThat(alphaJob.localItems()).isEmpty();
        assertThat(runsOf("alpha"))
                .as("no fire after the refusal runs on the instance that is not ready")
                .allSatisfy(run -> assertThat(run.fireTime()).isBefore(refused.plusSeconds(1)));

        AvailabilityChangeEvent.publish(alpha, ReadinessState.ACCEPTING_TRAFFIC);

        awaitSplit(6);
        assertThat(alphaJob.assignment().shardingTotalCount()).isEqualTo(6);
        Instant back = Instant.now();
        await().atMost(PATIENCE).until(() -> firesRunBy("alpha", back.plusSeconds(1)) >= 3);
        assertEveryItemOfSixRanOnceAndNeverTwiceAtOnce(
                resized.plusSeconds(2), Instant.now().minusSeconds(2));
    }

    private void startTwoCopies() {
        alpha = start("alpha");
        ConfigurableApplicationContext beta = start("beta");
        alphaJob = job(alpha);
        betaJob = job(beta);
        awaitSplit(4);
    }

    private void awaitSplit(int items) {
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaJob.assignment().epoch())
                    .isEqualTo(betaJob.assignment().epoch());
            assertThat(alphaJob.localItems()).hasSize(items / 2);
            assertThat(betaJob.localItems()).hasSize(items / 2);
        });
    }

    private void awaitAllItemsOnBetaOnly(int items) {
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(betaJob.localItems()).hasSize(items);
            assertThat(betaJob.assignment().itemsByInstance()).containsOnlyKeys("beta");
            assertThat(alphaJob.localItems()).isEmpty();
        });
    }

    /**
     * Each fire from {@code from} to {@code to} ran every item of six exactly once, wherever; no item ran on two
     * instances at overlapping times.
     */
    private static void assertEveryItemOfSixRanOnceAndNeverTwiceAtOnce(Instant from, Instant to) {
        List<ExecutionRecord> runs = List.copyOf(RUNS);
        Map<Instant, List<ExecutionRecord>> byFire = runs.stream()
                .filter(run -> !run.fireTime().isBefore(from) && !run.fireTime().isAfter(to))
                .collect(Collectors.groupingBy(ExecutionRecord::fireTime));
        assertThat(byFire.keySet()).as("fires judged from %s to %s", from, to).hasSizeGreaterThanOrEqualTo(4);
        byFire.forEach((fire, ofFire) -> assertThat(ofFire.stream().map(ExecutionRecord::item))
                .as("the items run of the fire at %s: %s", fire, ofFire)
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5));
        for (ExecutionRecord run : runs) {
            for (ExecutionRecord other : runs) {
                if (run != other && run.item() == other.item()) {
                    assertThat(run.start().isBefore(other.end())
                                    && other.start().isBefore(run.end()))
                            .as("item %d twice at once: %s and %s", run.item(), run, other)
                            .isFalse();
                }
            }
        }
    }

    private static long firesRunBy(String instance, Instant from) {
        return runsOf(instance).stream()
                .filter(run -> run.fireTime().isAfter(from))
                .map(ExecutionRecord::fireTime)
                .distinct()
                .count();
    }

    private static List<ExecutionRecord> runsOf(String instance) {
        return RUNS.stream().filter(run -> run.instance().equals(instance)).toList();
    }

    private ConfigurableApplicationContext start(String instanceId) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Service.class)
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(namespace, instanceId))
                .run();
        contexts.add(context);
        return context;
    }

    private static JobCoordinator job(ConfigurableApplicationContext context) {
        return context.getBean(ShardingOperations.class).job(PacedJob.NAME).orElseThrow();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        PacedJob pacedJob() {
            return new PacedJob();
        }

        @Bean
        ShardedJobListener everyRun() {
            return new ShardedJobListener() {
                @Override
                public void executed(ExecutionRecord execution) {
                    RUNS.add(execution);
                }
            };
        }
    }

    /** A job whose items take a while, so that two runs of one item at once would overlap. */
    static class PacedJob {

        static final String NAME = "paced";

        @ShardedJob(name = NAME, cron = "* * * * * *", shardingTotalCount = 4)
        void run(ShardingContext context) throws InterruptedException {
            // Stands for work; the tests wait with Awaitility.
            TimeUnit.MILLISECONDS.sleep(300);
        }
    }
}
