package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An item a reshard hands over while its old owner still runs it: the new owner's fire leaves the item to be made up,
 * and the new owner runs it once the old owner's run has ended, never beside it. No periodic check runs here (the
 * reconcile interval is an hour) and nothing changes in the registry after the reshard: the new owner looks again
 * when the old run's claim is written (the watch it left on it), else after the lateness its audit waits for a fire
 * still being recorded (without the watch this test takes about twice as long, which it does not assert).
 */
class HandOverTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void theNewOwnerRunsWhatTheItemMissedOnceTheOldOwnersRunEnds(boolean failover) throws Exception {
        JobConfiguration job = JobConfiguration.builder("handedOver")
                .cron("* * * * * *")
                .shardingTotalCount(2)
                .failover(failover)
                .misfire(true)
                .build();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        Instance a = start(
                "a",
                job,
                context -> {
                    if (context.item() == 1 && context.instanceId().equals("a")) {
                        running.countDown();
                        release.await(WITHIN.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
                    }
                },
                builder -> builder.reconcileInterval(Duration.ofHours(1)));
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(a)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // A fire returns once its items end: fired aside, as the trigger's thread would.
        CompletableFuture.runAsync(() -> a.coordinator().fire(ExecutionSource.NORMAL, first));
        assertThat(running.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        Instance b = start("b", job, context -> {}, builder -> builder.reconcileInterval(Duration.ofHours(1)));
        await().atMost(WITHIN)
                .until(() -> b.coordinator().assignment().itemsByInstance().containsKey("b")
                        && a.coordinator().assignment().equals(b.coordinator().assignment()));
        assertThat(b.coordinator().assignment().itemsByInstance().get("b")).containsExactly(1);
        Instant missed = first.plusSeconds(1);
        // b's fire finds item 1 running on a and leaves it to be made up: it returns at once, having run nothing.
        b.coordinator().fire(ExecutionSource.NORMAL, missed);
        assertThat(results(result -> result.context().instanceId().equals("b"))).isEmpty();
        assertThat(release.getCount()).as("a's run of item 1 still going").isOne();
        release.countDown();

        await().atMost(WITHIN)
                .until(() -> !results(result -> result.context().item() == 1
                                && result.context().instanceId().equals("b")
                                && result.fireTime().equals(missed))
                        .isEmpty());
        List<ItemResult> oldRun = results(
                result -> result.context().item() == 1 && result.fireTime().equals(first));
        assertThat(oldRun)
                .extracting(ItemResult::context)
                .extracting(ShardingContext::instanceId)
                .containsExactly("a");
        ItemResult newRun = results(result -> result.context().item() == 1
                        && result.context().instanceId().equals("b"))
                .get(0);
        assertThat(newRun.start())
                .as("never beside the old run")
                .isAfterOrEqualTo(oldRun.get(0).end());
    }
}
