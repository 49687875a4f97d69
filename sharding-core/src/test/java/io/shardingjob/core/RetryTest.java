package io.shardingjob.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Retries run with the context their item was fired with, whatever the cluster did meanwhile (seed 004 §5.1). */
class RetryTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @Test
    void aRetryKeepsTwoOfFiveAfterTheClusterGrewToTen() throws Exception {
        JobConfiguration config = JobConfiguration.builder("orders")
                .cron("0 0 0 * * *")
                .dynamicSharding(true)
                .jobParameter("orders")
                .retries(2)
                .retryBackoff(Duration.ofMillis(50))
                .build();
        CountDownLatch grown = new CountDownLatch(1);
        AtomicBoolean failed = new AtomicBoolean();
        List<Instance> cluster = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            cluster.add(start("executor-" + i, config, context -> {
                // Item 2 of the first fire fails, once, after the cluster has grown to ten.
                if (context.item() == 2 && context.shardingTotalCount() == 5 && failed.compareAndSet(false, true)) {
                    grown.await(20, TimeUnit.SECONDS);
                    throw new IllegalStateException("the order store was unavailable");
                }
            }));
        }
        await().atMost(WITHIN).until(() -> settledAt(5, cluster));
        Instant firstFire = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        List<CompletableFuture<FireReport>> fires = fireAll(cluster, firstFire);

        await().atMost(WITHIN).until(failed::get);
        for (int i = 5; i < 10; i++) {
            cluster.add(start("executor-" + i, config, context -> {}));
        }
        await().atMost(WITHIN).until(() -> settledAt(10, cluster));
        grown.countDown();
        fires.forEach(CompletableFuture::join);

        List<ItemResult> itemTwo = results(
                result -> result.context().item() == 2 && result.fireTime().equals(firstFire));
        assertThat(itemTwo).hasSize(2);
        ItemResult first = itemTwo.get(0);
        ItemResult retry = itemTwo.get(1);
        assertThat(first.succeeded()).isFalse();
        assertThat(first.source()).isEqualTo(ExecutionSource.NORMAL);
        assertThat(first.retry()).isZero();
        assertThat(retry.succeeded()).isTrue();
        assertThat(retry.source()).isEqualTo(ExecutionSource.RETRY);
        assertThat(retry.retry()).isEqualTo(1);
        assertThat(shardingParameter(retry.context())).isEqualTo("2/5");
        assertThat(retry.context()).isEqualTo(first.context());
        assertThat(retry.context().epoch())
                .isLessThan(cluster.get(0).coordinator().assignment().epoch());

        Instant nextFire = firstFire.plusSeconds(86_400);
        fireAll(cluster, nextFire).forEach(CompletableFuture::join);
        assertThat(results(result -> result.fireTime().equals(nextFire)))
                .extracting(result -> shardingParameter(result.context()))
                .containsExactlyInAnyOrder(
                        "0/10", "1/10", "2/10", "3/10", "4/10", "5/10", "6/10", "7/10", "8/10", "9/10");
    }

    @Test
    void recordsEveryRetryWithItsNumberAndStopsAfterTheLastOne() throws Exception {
        JobConfiguration config =
                JobConfiguration.builder("flaky").cron("0 0 0 * * *").retries(2).build();
        Instance instance = start("only", config, context -> {
            throw new IllegalStateException("always fails");
        });
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));

        FireReport report = instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        assertThat(report.results())
                .extracting(ItemResult::source, ItemResult::retry, ItemResult::succeeded)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ExecutionSource.NORMAL, 0, false),
                        org.assertj.core.groups.Tuple.tuple(ExecutionSource.RETRY, 1, false),
                        org.assertj.core.groups.Tuple.tuple(ExecutionSource.RETRY, 2, false));
    }

    @Test
    void aRunAStoreFencedOutIsNotRetriedAndIsReportedAsFencedOutThoughTheJobWrappedTheRefusal() throws Exception {
        JobConfiguration config = JobConfiguration.builder("fenced")
                .cron("0 0 0 * * *")
                .retries(2)
                .build();
        Instance instance = start("only", config, context -> {
            throw new IllegalStateException(
                    "the export failed", new FencedOutException(context, "exports key 'fenced/0'", 99L));
        });
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));

        FireReport report = instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        assertThat(report.results()).singleElement().satisfies(result -> {
            assertThat(result.succeeded()).isFalse();
            assertThat(result.fencedOut()).isTrue();
            assertThat(result.retry()).isZero();
        });
    }

    @Test
    void aRetryWhoseOwnerDiedIsTakenOverByFailoverWithTheOriginalContext() throws Exception {
        JobConfiguration config = JobConfiguration.builder("retried")
                .cron("0 0 0 * * *")
                .shardingTotalCount(2)
                .failover(true)
                .retries(3)
                // Long enough that the owner is still backing off when it dies.
                .retryBackoff(Duration.ofMinutes(1))
                .build();
        Instance doomed = start("a", config, context -> {
            throw new IllegalStateException("a's disk is full");
        });
        Instance survivor = start("b", config, context -> {});
        await().atMost(WITHIN).until(() -> settledAt(2, List.of(doomed, survivor)));
        assertThat(doomed.coordinator().localItems()).containsExactly(0);
        Instant fire = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        String claim = new io.shardingjob.core.internal.registry.JobNodes("retried").claim(fire, 0);

        CompletableFuture.runAsync(() -> doomed.coordinator().fire(ExecutionSource.NORMAL, fire));
        await().atMost(WITHIN)
                .until(() -> survivor.client().checkExists().forPath(claim) != null
                        && new String(survivor.client().getData().forPath(claim), UTF_8).contains("retry=1"));
        crash(doomed);

        await().atMost(WITHIN)
                .until(() -> !results(result -> result.context().instanceId().equals("b"))
                        .isEmpty());
        ItemResult original =
                results(result -> result.context().instanceId().equals("a")).get(0);
        ItemResult takenOver =
                results(result -> result.context().instanceId().equals("b")).get(0);
        assertThat(takenOver.source()).isEqualTo(ExecutionSource.FAILOVER);
        assertThat(takenOver.retry()).isEqualTo(1);
        assertThat(takenOver.fireTime()).isEqualTo(fire);
        assertThat(takenOver.succeeded()).isTrue();
        assertThat(takenOver.context().item()).isEqualTo(0);
        assertThat(takenOver.context().shardingTotalCount())
                .isEqualTo(original.context().shardingTotalCount());
        assertThat(takenOver.context().epoch()).isEqualTo(original.context().epoch());
    }

    private static List<CompletableFuture<FireReport>> fireAll(List<Instance> instances, Instant fireTime) {
        return instances.stream()
                .map(instance -> CompletableFuture.supplyAsync(
                        () -> instance.coordinator().fire(ExecutionSource.NORMAL, fireTime)))
                .toList();
    }

    /** XXL-JOB's {@code executor_sharding_param}. */
    private static String shardingParameter(ShardingContext context) {
        return context.item() + "/" + context.shardingTotalCount();
    }
}
