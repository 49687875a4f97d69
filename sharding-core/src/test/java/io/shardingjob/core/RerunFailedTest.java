package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.operation.InvalidOperationException;
import io.shardingjob.core.sharding.Assignment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * An operator's re-run of a past fire's failed items, {@link JobCoordinator#rerunFailed}, across three instances on a
 * real ZooKeeper: the failed items run once more each, on their current owners, as the fire's runs ({@code RETRY}, the
 * fire's time and job parameter), and a re-run that would run an item beside itself, or of a fire the ledger no longer
 * holds or with nothing failed, is refused.
 */
class RerunFailedTest extends JobInstanceTestSupport {

    private static final JobConfiguration SIX_ITEMS = JobConfiguration.builder("rerun")
            .cron("0 0 0 1 1 *")
            .shardingTotalCount(6)
            .jobParameter("configured")
            .build();

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** The items that fail when they run; a test empties it before it re-runs them. */
    private final Set<Integer> failing = ConcurrentHashMap.newKeySet();

    /** Holds the re-runs until a test lets them end. */
    private final CountDownLatch reRunsMayEnd = new CountDownLatch(1);

    private final Set<Integer> reRunning = ConcurrentHashMap.newKeySet();

    private final ItemExecutor job = context -> {
        if (context.source() == ExecutionSource.RETRY) {
            reRunning.add(context.item());
            reRunsMayEnd.await(30, TimeUnit.SECONDS);
        }
        if (failing.contains(context.item())) {
            throw new IllegalStateException("item " + context.item() + " fails");
        }
    };

    @Test
    void aReRunRunsExactlyTheFailedItemsOnceEachOnTheirOwnersAsTheFiresRuns() throws Exception {
        List<Instance> all = startThree(builder -> builder);
        Instant fireTime = aFireWithItemsOneAndThreeFailed(all);
        Assignment assignment = all.get(0).coordinator().assignment();
        // The leader's watermark passed the settled fire: audits no longer read it unless the re-run says so.
        await().atMost(WITHIN).until(() -> watermark(all.get(0)) >= fireTime.toEpochMilli());

        List<Integer> reopened = all.get(2).coordinator().rerunFailed(fireTime);
        reRunsMayEnd.countDown();

        assertThat(reopened).containsExactly(1, 3);
        await().atMost(WITHIN).until(() -> reRunsOf(fireTime).size() == 2);
        assertThat(reRunsOf(fireTime)).allSatisfy(run -> {
            assertThat(run.succeeded()).isTrue();
            assertThat(run.fireTime()).isEqualTo(fireTime);
            assertThat(run.context().fireTime()).isEqualTo(fireTime);
            assertThat(run.context().jobParameter()).isEqualTo("the 20th");
            assertThat(run.context().instanceId())
                    .isEqualTo(assignment.ownersByItem().get(run.context().item()));
        });
        assertThat(reRunsOf(fireTime)).extracting(run -> run.context().item()).containsExactlyInAnyOrder(1, 3);
        // Once each, and nothing else of the fire ran again.
        await().during(Duration.ofMillis(1500))
                .atMost(WITHIN)
                .until(() -> runsOf(fireTime).size() == 8);
    }

    @Test
    void aSecondReRunWhileTheFailedItemsRunAgainIsRefused() throws Exception {
        List<Instance> all = startThree(builder -> builder);
        Instant fireTime = aFireWithItemsOneAndThreeFailed(all);

        all.get(0).coordinator().rerunFailed(fireTime);
        await().atMost(WITHIN).until(() -> reRunning.containsAll(Set.of(1, 3)));

        assertThatThrownBy(() -> all.get(1).coordinator().rerunFailed(fireTime))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("[1, 3]")
                .hasMessageContaining("running");
        reRunsMayEnd.countDown();
        await().atMost(WITHIN).until(() -> reRunsOf(fireTime).size() == 2);
        await().during(Duration.ofMillis(1000))
                .atMost(WITHIN)
                .until(() -> reRunsOf(fireTime).size() == 2);
    }

    @Test
    void aReRunOfAFireWithNoFailedItemIsRefused() throws Exception {
        List<Instance> all = startThree(builder -> builder);
        Instant fireTime = all.get(0).coordinator().trigger("all well");
        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 6);

        assertThatThrownBy(() -> all.get(1).coordinator().rerunFailed(fireTime))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("failed");
        await().during(Duration.ofMillis(1000))
                .atMost(WITHIN)
                .until(() -> runsOf(fireTime).size() == 6);
    }

    @Test
    void aReRunOfAFireTheLedgerNoLongerHoldsIsRefused() throws Exception {
        List<Instance> all = startThree(builder -> builder.ledgerRetention(Duration.ofMillis(200)));
        Instant fireTime = aFireWithItemsOneAndThreeFailed(all);
        // Retired by the leader once twice the retention old.
        await().atMost(WITHIN)
                .until(() ->
                        all.get(0).client().checkExists().forPath("/.ledger/rerun/" + fireTime.toEpochMilli()) == null);

        assertThatThrownBy(() -> all.get(1).coordinator().rerunFailed(fireTime))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("retention");
        assertThatThrownBy(
                        () -> all.get(1).coordinator().rerunFailed(Instant.now().plusSeconds(60)))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("still to come");
        reRunsMayEnd.countDown();
        await().during(Duration.ofMillis(1000))
                .atMost(WITHIN)
                .until(() -> reRunsOf(fireTime).isEmpty());
    }

    @Test
    void twoConcurrentReRunsOfTheSameFireReopenEachFailedItemOnce() throws Exception {
        List<Instance> all = startThree(builder -> builder);
        Instant fireTime = aFireWithItemsOneAndThreeFailed(all);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<List<Integer>>> asked = new ArrayList<>();
        for (Instance instance : List.of(all.get(0), all.get(1))) {
            asked.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                return instance.coordinator().rerunFailed(fireTime);
            }));
        }

        go.countDown();
        List<List<Integer>> reopened = new ArrayList<>();
        List<Throwable> refused = new ArrayList<>();
        for (CompletableFuture<List<Integer>> each : asked) {
            each.handle((items, failure) -> failure == null ? reopened.add(items) : refused.add(failure.getCause()))
                    .get(30, TimeUnit.SECONDS);
        }
        reRunsMayEnd.countDown();

        assertThat(reopened).containsExactly(List.of(1, 3));
        assertThat(refused).singleElement().isInstanceOf(IllegalStateException.class);
        await().atMost(WITHIN).until(() -> reRunsOf(fireTime).size() == 2);
        await().during(Duration.ofMillis(1500))
                .atMost(WITHIN)
                .until(() -> reRunsOf(fireTime).size() == 2);
        assertThat(reRunsOf(fireTime)).extracting(run -> run.context().item()).containsExactlyInAnyOrder(1, 3);
    }

    /** Triggers a fire whose items 1 and 3 fail and the others succeed, and waits for its six ends. */
    private Instant aFireWithItemsOneAndThreeFailed(List<Instance> all) {
        failing.addAll(Set.of(1, 3));
        Instant fireTime = all.get(1).coordinator().trigger("the 20th");
        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 6);
        assertThat(runsOf(fireTime).stream()
                        .filter(run -> !run.succeeded())
                        .map(run -> run.context().item()))
                .containsExactlyInAnyOrder(1, 3);
        failing.clear();
        return fireTime;
    }

    private List<Instance> startThree(UnaryOperator<JobCoordinatorBuilder> more) throws InterruptedException {
        List<Instance> all = List.of(
                start("a", SIX_ITEMS, job, more), start("b", SIX_ITEMS, job, more), start("c", SIX_ITEMS, job, more));
        await().until(() -> settledAt(6, all));
        return all;
    }

    private List<ItemResult> runsOf(Instant fireTime) {
        return results(run -> run.fireTime().equals(fireTime));
    }

    private List<ItemResult> reRunsOf(Instant fireTime) {
        return results(run -> run.fireTime().equals(fireTime) && run.source() == ExecutionSource.RETRY);
    }

    private static long watermark(Instance instance) throws Exception {
        String data = new String(instance.client().getData().forPath("/.ledger/rerun"), StandardCharsets.UTF_8);
        return data.lines()
                .filter(line -> line.startsWith("settled="))
                .mapToLong(line ->
                        Long.parseLong(line.substring("settled=".length()).trim()))
                .findFirst()
                .orElse(0);
    }
}
