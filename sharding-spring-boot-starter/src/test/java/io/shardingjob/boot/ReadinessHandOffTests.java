package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.actuate.InstanceDescriptor;
import io.shardingjob.boot.actuate.JobDescriptor;
import io.shardingjob.boot.actuate.ShardingEndpoint;
import io.shardingjob.core.JobCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
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
class ReadinessHandOffTests extends ReadinessCopies {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

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
        assertEveryItemRanOnceAndNeverTwiceAtOnce(firstJudged, lastJudged, 4, 5);
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
        ConfigurableApplicationContext alpha = start("alpha", PacedService.class, WaitsBeforeReady.class);
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
        ConfigurableApplicationContext alpha =
                start("alpha", PacedService.class, "sharding.availability.enabled=false");
        ConfigurableApplicationContext beta = start("beta", PacedService.class, "sharding.availability.enabled=false");
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

    private ConfigurableApplicationContext start(String instanceId) {
        return start(instanceId, PacedService.class);
    }

    private static JobCoordinator job(ApplicationContext context) {
        return context.getBean(ShardingOperations.class).job(PacedJob.NAME).orElseThrow();
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
