package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.actuate.InstanceDescriptor;
import io.shardingjob.boot.actuate.JobDescriptor;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Two copies of one application on one ZooKeeper, one of which stops being ready and becomes ready again, as a pod
 * whose readiness probe fails for a while does: its items move to the other copy and come back, none lost, none run
 * twice, none on two copies at once.
 */
class ReadinessHandOffTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** Every run of every copy, as each copy's listener reports it. */
    private static final Queue<ExecutionRecord> RUNS = new ConcurrentLinkedQueue<>();

    private final String namespace = TestZooKeeper.newNamespace();

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
        RUNS.clear();
    }

    @Test
    void handsTheItemsOfAnInstanceThatIsNotReadyToTheOtherWithinOneReshardAndTakesThemBack() {
        ConfigurableApplicationContext alpha = start("alpha");
        ConfigurableApplicationContext beta = start("beta");
        JobCoordinator alphaJob = job(alpha);
        JobCoordinator betaJob = job(beta);
        awaitSplit(alphaJob, betaJob);
        long splitEpoch = betaJob.assignment().epoch();
        Instant firstJudged = Instant.now().plusSeconds(1);

        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);

        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(betaJob.localItems()).containsExactly(0, 1, 2, 3);
            assertThat(alphaJob.localItems()).isEmpty();
        });
        assertThat(betaJob.assignment().epoch()).as("one reshard").isEqualTo(splitEpoch + 1);
        assertThat(alphaJob.isStandingBy()).isTrue();
        assertThat(betaJob.liveInstances()).as("it stays registered").containsExactlyInAnyOrder("alpha", "beta");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(standingBy(beta))
                        .as("what /actuator/sharding shows of the instances")
                        .containsExactly(Map.entry("alpha", true), Map.entry("beta", false)));
        Instant moved = Instant.now();
        await().atMost(PATIENCE).until(() -> firesRunBy("beta", moved.plusSeconds(1)) >= 3);
        assertThat(runsOf("alpha"))
                .as("no fire after the move runs on the instance that is not ready")
                .allSatisfy(run -> assertThat(run.fireTime()).isBefore(moved.plusSeconds(1)));

        AvailabilityChangeEvent.publish(alpha, ReadinessState.ACCEPTING_TRAFFIC);

        awaitSplit(alphaJob, betaJob);
        assertThat(alphaJob.isStandingBy()).isFalse();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(betaJob.leavingInstances()).isEmpty());
        Instant back = Instant.now();
        await().atMost(PATIENCE).until(() -> firesRunBy("alpha", back.plusSeconds(1)) >= 3);
        Instant lastJudged = Instant.now().minusSeconds(2);
        assertEveryItemRanOnceAndNeverOnTwoInstancesAtOnce(firstJudged, lastJudged);
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void logsTheChangeOfReadinessOnceEveryLeavingMarkIsWritten(CapturedOutput output) {
        ConfigurableApplicationContext alpha = start("alpha");
        await().atMost(PATIENCE)
                .until(() -> output.getOut().contains("Readiness ACCEPTING_TRAFFIC: sharded jobs take"));

        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);

        await().atMost(PATIENCE)
                .until(() -> output.getOut()
                        .contains("Readiness REFUSING_TRAFFIC: sharded jobs stand by, marked leaving: their items move"
                                + " to the other instances (jobs: 1, "));
        assertThat(job(alpha).leavingInstances()).containsExactly("alpha");
    }

    @Test
    void runsNoItemBeforeTheApplicationIsReady() {
        ConfigurableApplicationContext alpha = start("alpha", Service.class, WaitsBeforeReady.class);
        WaitsBeforeReady beforeReady = alpha.getBean(WaitsBeforeReady.class);

        assertThat(beforeReady.standingBy).isTrue();
        assertThat(beforeReady.registered).isTrue();
        assertThat(beforeReady.itemsOwned).isZero();
        assertThat(beforeReady.runsBeforeReady).isZero();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(runsOf("alpha").stream()
                                .map(ExecutionRecord::item)
                                .collect(Collectors.toSet()))
                        .containsExactlyInAnyOrder(0, 1, 2, 3));
        assertThat(job(alpha).isStandingBy()).isFalse();
    }

    @Test
    void keepsTheItemsOfAnInstanceThatIsNotReadyWhenAvailabilityIsOff() {
        ConfigurableApplicationContext alpha = start("alpha", Service.class, "sharding.availability.enabled=false");
        ConfigurableApplicationContext beta = start("beta", Service.class, "sharding.availability.enabled=false");
        JobCoordinator alphaJob = job(alpha);
        JobCoordinator betaJob = job(beta);
        awaitSplit(alphaJob, betaJob);
        long epoch = betaJob.assignment().epoch();
        List<Integer> alphaItems = alphaJob.localItems();

        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);
        Instant refused = Instant.now();

        await().atMost(PATIENCE).until(() -> firesRunBy("alpha", refused.plusSeconds(1)) >= 2);
        assertThat(alphaJob.isStandingBy()).isFalse();
        assertThat(alphaJob.localItems()).isEqualTo(alphaItems);
        assertThat(betaJob.assignment().epoch()).isEqualTo(epoch);
    }

    /** Each instance of the job as {@code /actuator/sharding/{job}} of this copy shows it: standing by or not. */
    private static Map<String, Boolean> standingBy(ApplicationContext copy) {
        JobDescriptor job = new ShardingEndpoint(copy.getBean(ShardingOperations.class)).job(PacedJob.NAME);
        assertThat(job).isNotNull();
        return job.instances().stream()
                .collect(Collectors.toMap(
                        InstanceDescriptor::id, InstanceDescriptor::standingBy, (a, b) -> a, TreeMap::new));
    }

    private void awaitSplit(JobCoordinator alphaJob, JobCoordinator betaJob) {
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaJob.assignment().epoch())
                    .isEqualTo(betaJob.assignment().epoch());
            assertThat(alphaJob.localItems()).hasSize(2);
            assertThat(betaJob.localItems()).hasSize(2);
        });
    }

    /**
     * Each fire from {@code from} to {@code to} ran every item exactly once, wherever; no item ran on two instances at
     * overlapping times.
     */
    private static void assertEveryItemRanOnceAndNeverOnTwoInstancesAtOnce(Instant from, Instant to) {
        List<ExecutionRecord> runs = List.copyOf(RUNS);
        Map<Instant, List<ExecutionRecord>> byFire = runs.stream()
                .filter(run -> !run.fireTime().isBefore(from) && !run.fireTime().isAfter(to))
                .collect(Collectors.groupingBy(ExecutionRecord::fireTime));
        assertThat(byFire.keySet())
                .as("fires judged from %s to %s, of the runs %s", from, to, runs)
                .hasSizeGreaterThanOrEqualTo(5);
        byFire.forEach((fire, ofFire) -> assertThat(ofFire.stream().map(ExecutionRecord::item))
                .as("the items run of the fire at %s: %s", fire, ofFire)
                .containsExactlyInAnyOrder(0, 1, 2, 3));
        for (ExecutionRecord run : runs) {
            for (ExecutionRecord other : runs) {
                if (run.item() == other.item() && !run.instance().equals(other.instance())) {
                    assertThat(run.start().isBefore(other.end())
                                    && other.start().isBefore(run.end()))
                            .as("item %d on %s and on %s at once", run.item(), run, other)
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
        return start(instanceId, Service.class);
    }

    private ConfigurableApplicationContext start(String instanceId, Class<?> service, Object... more) {
        List<Class<?>> sources = new ArrayList<>(List.of(service));
        List<String> properties = new ArrayList<>();
        for (Object added : more) {
            if (added instanceof Class<?> source) {
                sources.add(source);
            } else {
                properties.add((String) added);
            }
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(namespace, instanceId))
                .properties(properties.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }

    private static JobCoordinator job(ApplicationContext context) {
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

        @ShardedJob(name = NAME, cron = "* * * * * *", shardingTotalCount = 4, failover = true)
        void run(ShardingContext context) throws InterruptedException {
            // Stands for work; the tests wait with Awaitility.
            TimeUnit.MILLISECONDS.sleep(300);
        }
    }

    /**
     * Holds the start-up after the jobs started and before the application is ready, for three fires, and notes what
     * this instance did meanwhile.
     */
    static class WaitsBeforeReady {

        volatile boolean standingBy;

        volatile boolean registered;

        volatile int itemsOwned = -1;

        volatile long runsBeforeReady = -1;

        @Bean
        ApplicationRunner holdBeforeReady(ShardingOperations operations) {
            return arguments -> {
                JobCoordinator job = operations.job(PacedJob.NAME).orElseThrow();
                Set<Integer> owned = new HashSet<>();
                await().during(Duration.ofSeconds(3)).atMost(PATIENCE).until(() -> {
                    owned.addAll(job.localItems());
                    return true;
                });
                standingBy = job.isStandingBy();
                registered = job.liveInstances().contains("alpha");
                itemsOwned = owned.size();
                runsBeforeReady = RUNS.size();
            };
        }
    }
}
