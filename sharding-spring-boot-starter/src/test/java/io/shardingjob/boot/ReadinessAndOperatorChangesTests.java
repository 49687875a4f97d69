package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What an operator changes while one of two copies stands by (its readiness refused): the readiness and the operator
 * each keep their say, so that an instance takes items only when it is both ready and enabled, and the job's own state
 * (disabled, its item count) ends where the operator left it.
 */
class ReadinessAndOperatorChangesTests extends ReadinessCopies {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private static final Duration HELD = Duration.ofSeconds(3);

    private ConfigurableApplicationContext alpha;

    private JobCoordinator alphaJob;

    private JobCoordinator betaJob;

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
        assertEveryItemRanOnceAndNeverTwiceAtOnce(
                resized.plusSeconds(2), Instant.now().minusSeconds(2), 6, 4);
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

    private ConfigurableApplicationContext start(String instanceId) {
        return start(instanceId, PacedService.class);
    }

    private static JobCoordinator job(ConfigurableApplicationContext context) {
        return context.getBean(ShardingOperations.class).job(PacedJob.NAME).orElseThrow();
    }
}
