package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Jobs that follow jobs, on a real ZooKeeper with two instances of each job: every completed fire of an upstream job
 * records its followers' fire at the same time, in the ledger, and their instances run it once.
 */
class ChainedJobsTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    /** Several audits and upkeeps of the leaders (every 300 ms here). */
    private static final Duration A_FEW_SECONDS = Duration.ofSeconds(3);

    private static final ItemExecutor SUCCEEDS = context -> {};

    private static JobConfiguration job(String name, String... after) {
        return JobConfiguration.builder(name).shardingTotalCount(4).after(after).build();
    }

    /** Starts the job on instances a and b; returns a's. */
    private Instance onTwo(JobConfiguration configuration, ItemExecutor job) throws InterruptedException {
        Instance a = start("a", configuration, job);
        Instance b = start("b", configuration, job);
        await().atMost(WITHIN).until(() -> settledAt(configuration.shardingTotalCount(), List.of(a, b)));
        return a;
    }

    private List<ItemResult> runsOf(String job) {
        return results(run -> run.context().jobName().equals(job));
    }

    @Test
    void aChainOfThreeJobsRunsInOrderOnceForEveryRootFireWithTheRootsFireTime() throws Exception {
        onTwo(job("export", "settle"), SUCCEEDS);
        onTwo(job("report", "export"), SUCCEEDS);
        Instance settle = onTwo(job("settle"), SUCCEEDS);

        List<Instant> roots = new ArrayList<>();
        for (int fire = 0; fire < 3; fire++) {
            roots.add(settle.coordinator().trigger(null));
        }

        await().atMost(WITHIN).until(() -> runsOf("report").size() == 12);
        await().during(A_FEW_SECONDS).atMost(A_FEW_SECONDS.plus(WITHIN)).until(() -> results.size() == 36);
        for (String job : List.of("settle", "export", "report")) {
            assertThat(runsOf(job))
                    .as("the runs of %s: every item of every root fire once", job)
                    .extracting(run -> run.fireTime() + "#" + run.context().item())
                    .doesNotHaveDuplicates()
                    .hasSize(12);
            assertThat(runsOf(job)).extracting(ItemResult::fireTime).containsOnlyElementsOf(roots);
        }
        assertThat(runsOf("export")).extracting(ItemResult::source).containsOnly(ExecutionSource.UPSTREAM);
        // Every run of the chain knows the root it belongs to: the identity its observations share.
        assertThat(results).extracting(run -> run.context().chain()).containsOnly("settle");
        for (Instant root : roots) {
            assertThat(firstStart("export", root)).isAfterOrEqualTo(lastEnd("settle", root));
            assertThat(firstStart("report", root)).isAfterOrEqualTo(lastEnd("export", root));
        }
    }

    @Test
    void aJobFollowingTwoFiresOnlyOnceBothCompletedTheSameFireTime() throws Exception {
        onTwo(job("merge", "fast", "slow"), SUCCEEDS);
        onTwo(job("fast", "root"), SUCCEEDS);
        onTwo(job("slow", "root"), context -> Thread.sleep(700));
        Instance root = onTwo(job("root"), SUCCEEDS);

        Instant fireTime = root.coordinator().trigger(null);

        await().atMost(WITHIN).until(() -> runsOf("merge").size() == 4);
        assertThat(firstStart("merge", fireTime)).isAfterOrEqualTo(lastEnd("slow", fireTime));
        assertThat(firstStart("merge", fireTime)).isAfterOrEqualTo(lastEnd("fast", fireTime));
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> runsOf("merge").size() == 4 && results.size() == 16);
        FireView merged = fireAt(root, "merge", fireTime);
        assertThat(merged.origin().after()).containsExactlyInAnyOrder("fast", "slow");
        assertThat(merged.origin().awaiting()).isEmpty();
    }

    @Test
    void aFailedUpstreamItemStopsAFollowerOnSuccessButNotOneOnCompletion() throws Exception {
        onTwo(
                JobConfiguration.builder("onSuccess")
                        .shardingTotalCount(4)
                        .after("flaky")
                        .build(),
                SUCCEEDS);
        onTwo(
                JobConfiguration.builder("onCompletion")
                        .shardingTotalCount(4)
                        .after("flaky")
                        .on(FollowOn.COMPLETION)
                        .build(),
                SUCCEEDS);
        Instance flaky = onTwo(job("flaky"), context -> {
            if (context.item() == 2) {
                throw new IllegalStateException("item 2 fails");
            }
        });

        Instant fireTime = flaky.coordinator().trigger(null);

        await().atMost(WITHIN).until(() -> runsOf("onCompletion").size() == 4);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() ->
                        runsOf("onSuccess").isEmpty() && runsOf("onCompletion").size() == 4);
        assertThat(runsOf("onCompletion")).extracting(ItemResult::fireTime).containsOnly(fireTime);
    }

    @Test
    void anUpstreamCompletionWhileEveryInstanceOfTheFollowerWasDownIsMadeUpOnceWhenOneStarts() throws Exception {
        JobConfiguration follower = job("late", "early");
        Instance gone = start("a", follower, SUCCEEDS);
        gone.coordinator().close();
        Instance early = onTwo(job("early"), SUCCEEDS);

        Instant fireTime = early.coordinator().trigger(null);
        await().atMost(WITHIN).until(() -> runsOf("early").size() == 4);
        await().atMost(WITHIN).until(() -> fireAt(early, "late", fireTime) != null);
        assertThat(runsOf("late")).isEmpty();

        start("b", follower, SUCCEEDS);

        await().atMost(WITHIN).until(() -> runsOf("late").size() == 4);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> runsOf("late").size() == 4);
        assertThat(runsOf("late")).extracting(run -> run.context().item()).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(runsOf("late")).extracting(ItemResult::fireTime).containsOnly(fireTime);
    }

    @Test
    void anItemWiseFollowersItemRunsAsSoonAsItsUpstreamItemSucceededAndNotWhenItFailed() throws Exception {
        onTwo(
                JobConfiguration.builder("export")
                        .shardingTotalCount(4)
                        .after("settle")
                        .itemWise(true)
                        .build(),
                SUCCEEDS);
        Instance settle = onTwo(job("settle"), context -> {
            if (context.item() == 3) {
                Thread.sleep(1_500);
            }
            if (context.item() == 2) {
                throw new IllegalStateException("item 2 fails");
            }
        });

        Instant fireTime = settle.coordinator().trigger(null);

        await().atMost(WITHIN).until(() -> runsOf("export").size() == 3);
        Instant item3Ended = runsOf("settle").stream()
                .filter(run -> run.context().item() == 3)
                .map(ItemResult::end)
                .findFirst()
                .orElseThrow();
        assertThat(runsOf("export"))
                .filteredOn(run -> run.context().item() == 0)
                .singleElement()
                .satisfies(run -> assertThat(run.start()).isBefore(item3Ended));
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> runsOf("export").size() == 3);
        assertThat(runsOf("export"))
                .allSatisfy(run -> {
                    assertThat(run.fireTime()).isEqualTo(fireTime);
                    assertThat(run.source()).isEqualTo(ExecutionSource.UPSTREAM);
                })
                .extracting(run -> run.context().item())
                .containsExactlyInAnyOrder(0, 1, 3);
        await().atMost(WITHIN).until(() -> {
            FireView export = fireAt(settle, "export", fireTime);
            return export != null && export.isSettled() && !export.origin().isAwaiting();
        });
    }

    @Test
    void aFireAwaitingAnUpstreamThatNeverFiresThenIsGivenUpOnceBeyondTheCatchUpHorizon() throws Exception {
        JobConfiguration merge = job("merge", "a", "b");
        Instance mergeA = start("a", merge, SUCCEEDS, builder -> builder.catchUpHorizon(Duration.ofSeconds(2)));
        Instance mergeB = start("b", merge, SUCCEEDS, builder -> builder.catchUpHorizon(Duration.ofSeconds(2)));
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(mergeA, mergeB)));
        onTwo(job("b"), SUCCEEDS);
        Instance a = onTwo(job("a"), SUCCEEDS);

        Instant fireTime = a.coordinator().trigger(null);

        await().atMost(WITHIN).until(() -> {
            FireView waiting = fireAt(a, "merge", fireTime);
            return waiting != null && waiting.origin().isAbandoned();
        });
        assertThat(fireAt(a, "merge", fireTime).origin().abandonedBy()).isEqualTo("b");
        LedgerParts ledger = LedgerParts.of(a.client(), new JobNodes("merge"));
        await().atMost(WITHIN)
                .until(() -> ledger.reads().overview().stillOpen().isEmpty()
                        && !ledger.reads().overview().watermark().isBefore(fireTime));
        assertThat(runsOf("merge")).isEmpty();
    }

    @Test
    void aReRunThatMakesAFailedUpstreamFireSucceedContinuesTheChainOnce() throws Exception {
        onTwo(job("export", "flaky"), SUCCEEDS);
        java.util.concurrent.atomic.AtomicBoolean failedOnce = new java.util.concurrent.atomic.AtomicBoolean();
        Instance flaky = onTwo(job("flaky"), context -> {
            if (context.item() == 2 && failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("item 2 fails its first run");
            }
        });
        Instant fireTime = flaky.coordinator().trigger(null);
        await().atMost(WITHIN).until(() -> runsOf("flaky").size() == 4);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> runsOf("export").isEmpty());

        flaky.coordinator().rerunFailed(fireTime);

        await().atMost(WITHIN).until(() -> runsOf("export").size() == 4);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> runsOf("export").size() == 4 && runsOf("flaky").size() == 5);
        assertThat(runsOf("export")).extracting(ItemResult::fireTime).containsOnly(fireTime);
    }

    /** The job's fire at that time as its ledger holds it, or null. */
    private static FireView fireAt(Instance any, String job, Instant fireTime) throws Exception {
        LedgerParts ledger = LedgerParts.of(any.client(), new JobNodes(job));
        return ledger.reads().fires().contains(fireTime)
                ? ledger.reads().read(List.of(fireTime)).get(0)
                : null;
    }

    private Instant firstStart(String job, Instant fireTime) {
        return runsOf(job).stream()
                .filter(run -> run.fireTime().equals(fireTime))
                .map(ItemResult::start)
                .min(Comparator.naturalOrder())
                .orElseThrow();
    }

    private Instant lastEnd(String job, Instant fireTime) {
        return runsOf(job).stream()
                .filter(run -> run.fireTime().equals(fireTime))
                .map(ItemResult::end)
                .max(Comparator.naturalOrder())
                .orElseThrow();
    }
}
