package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A follower fires with its upstream's fire time, which is older than the follower's catch-up horizon when the upstream
 * ran longer than it: on a real ZooKeeper, an item of such a fire that its owner could not claim at the announcement
 * is made up all the same, and the follower's leader does not retire the fire first.
 */
class LateFollowerFireTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    /** The upstream's item runs longer than the follower's catch-up horizon and retention. */
    private static final ItemExecutor RUNS_PAST_THE_HORIZON = context -> Thread.sleep(1_500);

    /** The follower sees the upstream's fire past both its catch-up horizon and its retention at once. */
    private static final UnaryOperator<JobCoordinatorBuilder> SHORT_HORIZON =
            builder -> builder.catchUpHorizon(Duration.ofSeconds(1)).ledgerRetention(Duration.ofSeconds(1));

    private static JobConfiguration job(String name, String... after) {
        return JobConfiguration.builder(name).shardingTotalCount(2).after(after).build();
    }

    private List<ItemResult> runsOf(String job, Instant fireTime) {
        return results(
                run -> run.context().jobName().equals(job) && run.fireTime().equals(fireTime));
    }

    @Test
    void aFollowersFireOlderThanItsHorizonRunsWhenItsOnlyInstanceStartsAfterTheUpstreamCompleted() throws Exception {
        start("a", job("export", "settle"), context -> {}, SHORT_HORIZON)
                .coordinator()
                .close();
        Instance settle = start("s", job("settle"), RUNS_PAST_THE_HORIZON);
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(settle)));

        Instant fireTime = settle.coordinator().trigger(null);
        LedgerParts exports = LedgerParts.of(settle.client(), new JobNodes("export"));
        await().atMost(WITHIN).until(() -> exports.reads().fires().contains(fireTime));

        start("b", job("export", "settle"), context -> {}, SHORT_HORIZON);

        // Recorded while no instance of it was there: made up under its misfire policy (once), whatever its age.
        await().atMost(WITHIN).until(() -> runsOf("export", fireTime).size() == 2);
        assertThat(runsOf("export", fireTime)).extracting(ItemResult::source).containsOnly(ExecutionSource.UPSTREAM);
    }

    @Test
    void aFollowersFireOlderThanItsHorizonRunsOnceItsOwnerIsNoLongerBusyWithTheItem() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        Instance export = start(
                "a",
                job("export", "settle"),
                context -> {
                    if (context.source() == ExecutionSource.MANUAL) {
                        busy.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
                    }
                },
                SHORT_HORIZON);
        Instance settle = start("s", job("settle"), RUNS_PAST_THE_HORIZON);
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(export)) && settledAt(2, List.of(settle)));
        // The follower's instance is busy with both its items when the upstream's fire completes.
        export.coordinator().trigger(null);

        Instant fireTime = settle.coordinator().trigger(null);
        LedgerParts exports = LedgerParts.of(settle.client(), new JobNodes("export"));
        await().atMost(WITHIN).until(() -> exports.reads().fires().contains(fireTime));
        busy.countDown();

        await().atMost(WITHIN).until(() -> runsOf("export", fireTime).size() == 2);
        assertThat(runsOf("export", fireTime)).extracting(ItemResult::source).containsOnly(ExecutionSource.UPSTREAM);
    }
}
