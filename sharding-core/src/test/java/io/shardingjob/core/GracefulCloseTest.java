package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A graceful close never lets its session end under a run it started, against a real ZooKeeper: an item that ignores
 * interrupts well past the grace period keeps its instance registered until it returns, and only then is it taken over.
 */
class GracefulCloseTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** Longer than the grace period (500 ms) and the old one-second wait after it, and than the session timeout. */
    private static final Duration STUBBORN = Duration.ofMillis(3_000);

    private static final JobConfiguration TWO_ITEMS = JobConfiguration.builder("settlement")
            .cron("* * * * * *")
            .shardingTotalCount(2)
            .failover(true)
            .build();

    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

    private final CountDownLatch firstStarted = new CountDownLatch(1);

    @Test
    void anInterruptedItemThatKeepsRunningIsTakenOverOnlyOnceItReturnedAndCloseWaitsForIt() throws Exception {
        Instance leaving = start("a", TWO_ITEMS, stubbornOn("a"));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(leaving)));
        Instance staying = start("b", TWO_ITEMS, stubbornOn("b"));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(leaving, staying)));
        int item = leaving.coordinator().localItems().get(0);

        leaving.coordinator().fireAsync(ExecutionSource.NORMAL, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Instant> closed = CompletableFuture.supplyAsync(() -> {
            leaving.coordinator().close();
            return Instant.now();
        });

        // Past the grace period and the session timeout, the interrupted item still runs: the instance must still be
        // registered, and nobody else may have started its item.
        await().during(SESSION_TIMEOUT.plusMillis(500)).atMost(WITHIN).untilAsserted(() -> {
            assertThat(closed).isNotDone();
            assertThat(endOf("a", item)).isNull();
            assertThat(staying.coordinator().liveInstances()).contains("a");
            assertThat(runs).noneMatch(run -> run.instance().equals("b") && run.item() == item);
        });

        Instant closedAt = closed.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        Run first = endOf("a", item);
        assertThat(first).as("the interrupted run returned").isNotNull();
        assertThat(closedAt).as("close returns only after the run returned").isAfterOrEqualTo(first.end());
        await().atMost(WITHIN).until(() -> startOf("b", item) != null);
        Run takeOver = startOf("b", item);
        assertThat(takeOver.source()).isEqualTo(ExecutionSource.FAILOVER);
        assertThat(takeOver.start())
                .as("the take-over starts only after the first run returned")
                .isAfterOrEqualTo(first.end());
    }

    @Test
    void aSecondCloseReturnsOnlyOnceTheFirstCloseIsDone() throws Exception {
        Instance leaving = start("a", TWO_ITEMS, stubbornOn("a"));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(leaving)));

        leaving.coordinator().fireAsync(ExecutionSource.NORMAL, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> firstClose = CompletableFuture.runAsync(leaving.coordinator()::close);
        await().atMost(WITHIN).until(() -> !leaving.coordinator().isStarted());
        leaving.coordinator().close();

        // Every run that began here has ended; one whose start was still on its way when the close began never begins.
        assertThat(runs).isNotEmpty().allMatch(run -> run.end() != null);
        firstClose.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Records its start and end, and runs {@link #STUBBORN} long whatever interrupts it. */
    private ItemExecutor stubbornOn(String instance) {
        return context -> {
            Run run = new Run(instance, context.item(), context.source(), Instant.now());
            runs.add(run);
            firstStarted.countDown();
            long until = System.nanoTime() + STUBBORN.toNanos();
            while (System.nanoTime() < until) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ignored) {
                    // An item that does not stop when asked.
                }
            }
            run.end = Instant.now();
        };
    }

    private Run startOf(String instance, int item) {
        return runs.stream()
                .filter(run -> run.instance().equals(instance) && run.item() == item)
                .findFirst()
                .orElse(null);
    }

    private Run endOf(String instance, int item) {
        Run run = startOf(instance, item);
        return run == null || run.end() == null ? null : run;
    }

    /** One run of one item on one instance; its end once it returned. */
    private static final class Run {

        private final String instance;

        private final int item;

        private final ExecutionSource source;

        private final Instant start;

        private volatile Instant end;

        Run(String instance, int item, ExecutionSource source, Instant start) {
            this.instance = instance;
            this.item = item;
            this.source = source;
            this.start = start;
        }

        String instance() {
            return instance;
        }

        int item() {
            return item;
        }

        ExecutionSource source() {
            return source;
        }

        Instant start() {
            return start;
        }

        Instant end() {
            return end;
        }
    }
}
