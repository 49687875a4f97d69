package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.MisfireListener;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The misfire listener is told of the misses and overruns the audit and the fires decide on, each item-fire once. */
class MisfireListenerTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final JobConfiguration FOUR_ITEMS = JobConfiguration.builder("watched")
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .build();

    private static final JobConfiguration ONE_ITEM_DAILY =
            JobConfiguration.builder("watched").cron("0 0 0 * * *").build();

    private final ConcurrentLinkedQueue<Report> reports = new ConcurrentLinkedQueue<>();

    private final MisfireListener listener = new MisfireListener() {
        @Override
        public void fireMissed(String jobName, Instant fireTime, List<Integer> items, String detail) {
            reports.add(new Report("missed", jobName, fireTime, items, detail));
        }

        @Override
        public void fireOverran(String jobName, Instant fireTime, List<Integer> items, String detail) {
            reports.add(new Report("overran", jobName, fireTime, items, detail));
        }
    };

    @Test
    void reportsEachFireMissedWhileEveryInstanceWasDownOnceWhenAnInstanceComesBack() throws Exception {
        Instant last = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(6);
        Instance before = start("a", FOUR_ITEMS, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(before)));
        before.coordinator().fire(ExecutionSource.NORMAL, last);
        before.coordinator().close();

        // Back after the fires of several seconds which nobody claimed, and firing on time again.
        Instance after = start(
                "b",
                FOUR_ITEMS,
                context -> {},
                builder -> builder.schedule(EVERY_SECOND).misfireListener(listener));
        Instant resumed = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        after.coordinator().fire(ExecutionSource.NORMAL, resumed);

        List<Instant> missed = Stream.iterate(last.plusSeconds(1), resumed::isAfter, fire -> fire.plusSeconds(1))
                .toList();
        // Each missed fire is reported once it is late, by the audit that makes it up: each of its items once, though
        // perhaps in more than one report (an audit leaves out the items the fire at the instant back still runs, and
        // a later one makes them up). A fire after it is reported only if it too came late (a loaded machine).
        await().atMost(WITHIN).untilAsserted(() -> {
            Map<Instant, List<Integer>> itemsByFire = new TreeMap<>();
            reports.stream()
                    .filter(report -> report.fireTime().isBefore(resumed))
                    .forEach(report -> itemsByFire
                            .computeIfAbsent(report.fireTime(), fire -> new ArrayList<>())
                            .addAll(report.items()));
            assertThat(itemsByFire).containsOnlyKeys(missed);
            assertThat(itemsByFire.values())
                    .allSatisfy(items -> assertThat(items)
                            .as("each item of a missed fire reported once")
                            .containsExactlyInAnyOrder(0, 1, 2, 3));
        });
        assertThat(reports).allSatisfy(report -> {
            assertThat(report.kind()).isEqualTo("missed");
            assertThat(report.jobName()).isEqualTo("watched");
        });
        // Under the policy "once", the latest missed fire runs and the ones before it are folded into it.
        assertThat(reports)
                .filteredOn(report -> report.fireTime().equals(missed.get(missed.size() - 1)))
                .isNotEmpty()
                .allSatisfy(report -> assertThat(report.detail()).contains("made up now"));
        assertThat(reports)
                .filteredOn(report -> report.fireTime().equals(missed.get(0)))
                .isNotEmpty()
                .allSatisfy(report -> assertThat(report.detail()).contains("coalesced"));
    }

    @Test
    void reportsAFireThatCameWhileAnItemStillRanFromThePreviousOneAndNotItsMakeUpAsMissed() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Instance only = start(
                "only",
                ONE_ITEM_DAILY,
                context -> {
                    if (started.getCount() > 0) {
                        started.countDown();
                        release.await(WITHIN.toSeconds(), TimeUnit.SECONDS);
                    }
                },
                builder -> builder.misfireListener(listener));
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(only)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant second = first.plusSeconds(1);

        CompletableFuture<FireReport> running = only.coordinator().fireAsync(ExecutionSource.NORMAL, first);
        assertThat(started.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        only.coordinator().fire(ExecutionSource.NORMAL, second);

        assertThat(reports).singleElement().satisfies(report -> {
            assertThat(report.kind()).isEqualTo("overran");
            assertThat(report.fireTime()).isEqualTo(second);
            assertThat(report.items()).containsExactly(0);
        });
        release.countDown();
        running.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        // Made up once it ended, as the misfire policy says: a consequence of the overrun, not a second report.
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                        .extracting(ItemResult::fireTime)
                        .containsExactly(second));
        assertThat(reports).hasSize(1);
    }

    @Test
    void anInstanceThatStoodByReportsNoOverrunOfTheFireItsStandInRanWhenItResumesDuringIt() throws Exception {
        JobConfiguration fourItemsDaily =
                ONE_ITEM_DAILY.toBuilder().shardingTotalCount(4).build();
        AtomicInteger running = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        ItemExecutor held = context -> {
            running.incrementAndGet();
            release.await(WITHIN.toSeconds(), TimeUnit.SECONDS);
        };
        Instance a = start("a", fourItemsDaily, held, builder -> builder.misfireListener(listener));
        Instance b = start("b", fourItemsDaily, held);
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(a, b)));
        a.coordinator().standBy().toCompletableFuture().get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        await().atMost(WITHIN)
                .until(() -> Stream.of(a, b)
                        .map(Instance::coordinator)
                        .allMatch(coordinator -> !coordinator.isReshardPending()
                                && coordinator
                                        .assignment()
                                        .itemsByInstance()
                                        .keySet()
                                        .equals(Set.of("b"))));
        Instant fireTime = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        CompletableFuture<FireReport> onB = b.coordinator().fireAsync(ExecutionSource.NORMAL, fireTime);
        await().atMost(WITHIN).until(() -> running.get() == 4);

        // Left out of the assignment, it closes its fire at once rather than wait for an assignment that names it:
        // the one its resume brings would find its items running on the stand-in, and report them overran.
        CompletableFuture<FireReport> onA = a.coordinator().fireAsync(ExecutionSource.NORMAL, fireTime);
        a.coordinator().resume().toCompletableFuture().get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(a, b)));
        onA.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        release.countDown();
        onB.get(WITHIN.toSeconds(), TimeUnit.SECONDS);

        assertThat(results(result -> result.fireTime().equals(fireTime)))
                .extracting(result -> result.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(reports).isEmpty();
    }

    private record Report(String kind, String jobName, Instant fireTime, List<Integer> items, String detail) {}
}
