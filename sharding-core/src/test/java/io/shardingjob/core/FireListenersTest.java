package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.FireCompletion.Outcome;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Before/after listeners on each instance, and the completion listener called once per fire across the cluster. */
class FireListenersTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final JobConfiguration SIX_ITEMS = JobConfiguration.builder("settlement")
            .cron("0 0 0 * * *")
            .shardingTotalCount(6)
            .failover(true)
            .build();

    private final ConcurrentLinkedQueue<FireCompletion> completions = new ConcurrentLinkedQueue<>();

    @Test
    void callsBeforeAndAfterAroundTheItemsOfThisInstance() throws Exception {
        ConcurrentLinkedQueue<String> calls = new ConcurrentLinkedQueue<>();
        FireListener listener = new FireListener() {
            @Override
            public void beforeFire(
                    String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {
                calls.add("before " + items.stream().map(ShardingContext::item).toList());
            }

            @Override
            public void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {
                calls.add("after " + report.items());
            }
        };
        Instance instance = start(
                "only",
                SIX_ITEMS,
                context -> calls.add("item " + context.item()),
                builder -> builder.fireListener(listener));
        await().atMost(WITHIN).until(() -> settledAt(6, List.of(instance)));

        instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        assertThat(calls).hasSize(8).startsWith("before [0, 1, 2, 3, 4, 5]").endsWith("after [0, 1, 2, 3, 4, 5]");
    }

    @Test
    void callsTheCompletionListenerOncePerFireAcrossThreeInstancesWithHowEachItemEnded() throws Exception {
        List<Instance> cluster = List.of(
                startWithCompletionListener("a", context -> {}),
                startWithCompletionListener("b", context -> {
                    if (context.item() == 2) {
                        throw new IllegalStateException("ledger locked");
                    }
                }),
                startWithCompletionListener("c", context -> {}));
        await().atMost(WITHIN).until(() -> settledAt(6, cluster));
        cluster.get(0).coordinator().disableItem(5);
        await().atMost(WITHIN)
                .until(() -> cluster.stream()
                        .allMatch(instance ->
                                instance.coordinator().disabledItems().contains(5)));
        Instant first = now();
        Instant second = first.plusSeconds(60);

        fireAll(cluster, first);
        fireAll(cluster, second);

        await().atMost(WITHIN).until(() -> completions.size() >= 2);
        assertThat(completions).extracting(FireCompletion::fireTime).containsExactlyInAnyOrder(first, second);
        FireCompletion completion = completions.stream()
                .filter(done -> done.fireTime().equals(first))
                .findFirst()
                .orElseThrow();
        assertThat(completion.shardingTotalCount()).isEqualTo(6);
        assertThat(completion.items()).containsOnlyKeys(0, 1, 2, 3, 4, 5);
        assertThat(completion.items().get(2).outcome()).isEqualTo(Outcome.FAILED);
        assertThat(completion.items().get(5).outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(completion.items().get(0).outcome()).isEqualTo(Outcome.SUCCESS);
        assertThat(completion.succeeded()).isFalse();
    }

    @Test
    void whenTheInstanceCallingTheCompletionListenerDiesAnotherCallsIt() throws Exception {
        JobConfiguration twoItems = SIX_ITEMS.toBuilder().shardingTotalCount(2).build();
        CountDownLatch calledOnTheDoomed = new CountDownLatch(1);
        Instance doomed = start(
                "a",
                twoItems,
                context -> {},
                builder -> builder.completionListener(completion -> {
                    calledOnTheDoomed.countDown();
                    try {
                        // It dies in the middle of the call.
                        Thread.sleep(Duration.ofMinutes(5).toMillis());
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                }));
        Instance survivor =
                start("b", twoItems, context -> {}, builder -> builder.completionListener(completions::add));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(doomed, survivor)));
        Instant fire = now();

        survivor.coordinator().fire(ExecutionSource.NORMAL, fire);
        // The doomed instance ends the last item, so it is the one that calls the listener.
        CompletableFuture.runAsync(() -> doomed.coordinator().fire(ExecutionSource.NORMAL, fire));
        assertThat(calledOnTheDoomed.await(WITHIN.toSeconds(), TimeUnit.SECONDS))
                .isTrue();
        crash(doomed);

        await().atMost(WITHIN).until(() -> !completions.isEmpty());
        FireCompletion completion = completions.peek();
        assertThat(completion.fireTime()).isEqualTo(fire);
        assertThat(completion.items()).containsOnlyKeys(0, 1);
        assertThat(completion.succeeded()).isTrue();
    }

    @Test
    void aFireWhoseItemsOwnerNeverFiredCompletesOnceItsAuditMakesTheItemUpByTheCoordinatorsClock() throws Exception {
        JobConfiguration twoItems = SIX_ITEMS.toBuilder().shardingTotalCount(2).build();
        SettableClock clock = new SettableClock(now());
        List<Instance> cluster = List.of(
                start(
                        "a",
                        twoItems,
                        context -> {},
                        builder -> builder.completionListener(completions::add).clock(clock)),
                start(
                        "b",
                        twoItems,
                        context -> {},
                        builder -> builder.completionListener(completions::add).clock(clock)));
        await().atMost(WITHIN).until(() -> settledAt(2, cluster));
        Instant fire = clock.instant();

        // Only a fires: b's item has no claim for this fire until b's audit finds the fire late, by b's clock.
        cluster.get(0).coordinator().fire(ExecutionSource.NORMAL, fire);
        assertThat(completions).isEmpty();
        clock.advance(Duration.ofSeconds(3));

        await().atMost(WITHIN).until(() -> !completions.isEmpty());
        FireCompletion completion = completions.peek();
        assertThat(completion.fireTime()).isEqualTo(fire);
        assertThat(completion.succeeded()).isTrue();
        assertThat(completion.items().get(1).instanceId()).isEqualTo("b");
        assertThat(results(result -> result.context().item() == 1))
                .singleElement()
                .satisfies(result -> assertThat(result.source()).isEqualTo(ExecutionSource.MISFIRE));
    }

    /** Now, to the millisecond: completion records are kept per millisecond of their fire time. */
    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    private Instance startWithCompletionListener(String id, io.shardingjob.core.execution.ItemExecutor job)
            throws InterruptedException {
        return start(id, SIX_ITEMS, job, builder -> builder.completionListener(completions::add));
    }

    private static void fireAll(List<Instance> cluster, Instant fireTime) {
        CompletableFuture.allOf(cluster.stream()
                        .map(instance -> CompletableFuture.runAsync(
                                () -> instance.coordinator().fire(ExecutionSource.NORMAL, fireTime)))
                        .toArray(CompletableFuture[]::new))
                .join();
    }
}
