package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An item executor that is full, against a real ZooKeeper: a bounded pool that refuses a run ({@code AbortPolicy})
 * leaves no item stuck, and one that runs it on the thread handing it over ({@code CallerRunsPolicy}) never gets
 * ZooKeeper's event thread or the job's coordination loop to run it on.
 */
class BoundedItemExecutorTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    private final CountDownLatch released = new CountDownLatch(1);

    private ThreadPoolExecutor pool;

    private Instance survivor;

    @AfterEach
    void releaseAndStopThePool() {
        released.countDown();
        if (survivor != null) {
            // A client whose event thread is wedged would keep its job's close waiting for a run that never returns.
            crash(survivor);
        }
        if (pool != null) {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {false, true})
    void anItemTheExecutorRefusesIsHandedOnAndRunsOnceWithoutKeepingItsItemFromLaterFires(boolean failover)
            throws Exception {
        // With failover on, runs may be refused with their starts written already (with their claims, or ahead).
        JobConfiguration fourItems = JobConfiguration.builder("bounded")
                .cron("* * * * * *")
                .shardingTotalCount(4)
                .failover(failover)
                .build();
        // One thread and a queue of one: of a fire's four runs, two at most are taken while the first one waits.
        pool = bounded(new ArrayBlockingQueue<>(1), new ThreadPoolExecutor.AbortPolicy());
        Instant first = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
        CountDownLatch firstRunStarted = new CountDownLatch(1);
        ItemExecutor job = context -> {
            if (context.fireTime().equals(first)) {
                firstRunStarted.countDown();
                released.await(10, TimeUnit.SECONDS);
            }
        };
        Instance only = start("only", fourItems, job, builder -> builder.job(job, pool));
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(only)));

        only.coordinator().fireAsync(ExecutionSource.NORMAL, first);
        assertThat(firstRunStarted.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        released.countDown();

        // Before, the refused runs kept their items reserved and their claims held: made up by nobody, and every later
        // fire met those items "still running".
        await().atMost(WITHIN).untilAsserted(() -> assertThat(ranAt(first)).containsExactlyInAnyOrder(0, 1, 2, 3));
        Instant later = first.plusSeconds(1);
        only.coordinator().fireAsync(ExecutionSource.NORMAL, later);
        await().atMost(WITHIN).untilAsserted(() -> assertThat(ranAt(later)).containsExactlyInAnyOrder(0, 1, 2, 3));
        await().atMost(WITHIN)
                .untilAsserted(() ->
                        assertThat(only.coordinator().ledger().openClaims()).isEmpty());
        assertThat(results(result -> true))
                .extracting(result -> result.context().item() + "@" + result.fireTime())
                .doesNotHaveDuplicates();
    }

    @Test
    void aTakeOverWhileACallerRunsExecutorIsFullRunsAndLeavesTheClientAnsweringLaterFires() throws Exception {
        JobConfiguration twoItems = JobConfiguration.builder("bounded")
                .cron("* * * * * *")
                .shardingTotalCount(2)
                .failover(true)
                .build();
        Instant first = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
        CountDownLatch crashedRunStarted = new CountDownLatch(1);
        Instance crashing = start("a", twoItems, context -> {
            crashedRunStarted.countDown();
            released.await(30, TimeUnit.SECONDS);
        });
        // One thread and no queue: once its thread is busy, every run handed to it runs on the thread handing it over.
        pool = bounded(new SynchronousQueue<>(), new ThreadPoolExecutor.CallerRunsPolicy());
        ItemExecutor job = context -> {};
        survivor = start("b", twoItems, job, builder -> builder.job(job, pool));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(crashing, survivor)));
        int orphaned = crashing.coordinator().localItems().get(0);

        crashing.coordinator().fireAsync(ExecutionSource.NORMAL, first);
        assertThat(crashedRunStarted.await(WITHIN.toSeconds(), TimeUnit.SECONDS))
                .isTrue();
        CountDownLatch busy = new CountDownLatch(1);
        pool.execute(() -> {
            busy.countDown();
            awaitQuietly(released);
        });
        assertThat(busy.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        crash(crashing);

        // Before, the take-over's run went to the full executor from ZooKeeper's event thread, ran there, and waited
        // for the answer to its start write, which only that thread could deliver: the run never began, and the
        // client never answered anything asynchronous again.
        // The crashed instance's own run may report too, once it is interrupted (nothing proves its session): only the
        // survivor's runs are the take-over's.
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(
                                results(result -> result.fireTime().equals(first)
                                        && result.context().item() == orphaned
                                        && result.context().instanceId().equals(survivor.id())))
                        .extracting(ItemResult::source)
                        .containsExactly(ExecutionSource.FAILOVER));
        released.countDown();
        Instant later = first.plusSeconds(1);
        await().atMost(WITHIN).until(() -> survivor.coordinator().localItems().size() == 2);
        survivor.coordinator().fireAsync(ExecutionSource.NORMAL, later);
        await().atMost(WITHIN).untilAsserted(() -> assertThat(ranAt(later)).containsExactlyInAnyOrder(0, 1));
    }

    private List<Integer> ranAt(Instant fireTime) {
        return results(result -> result.fireTime().equals(fireTime)).stream()
                .map(result -> result.context().item())
                .toList();
    }

    private static ThreadPoolExecutor bounded(BlockingQueue<Runnable> queue, RejectedExecutionHandler whenFull) {
        return new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, queue, whenFull);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
