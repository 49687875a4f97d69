package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ledger's recent fires as operators read them: every item's claim across the cluster. */
class RecentFiresTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final JobConfiguration FOUR_ITEMS = JobConfiguration.builder("settlement")
            .cron("0 0 0 * * *")
            .shardingTotalCount(4)
            .build();

    @Test
    void listsTheFiresNewestFirstWithEachItemsClaimFromEveryInstance() throws Exception {
        List<Instance> cluster = List.of(start("a", FOUR_ITEMS, context -> {}), start("b", FOUR_ITEMS, context -> {}));
        await().atMost(WITHIN).until(() -> settledAt(4, cluster));
        // Just past, well inside LedgerRules.LATENESS: an older fire is late, and the audit may make up its items
        // (as MISFIRE) before the second instance's own fire claims them.
        Instant second = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusMillis(5);
        Instant first = second.minusMillis(10);
        for (Instant fireTime : List.of(first, second)) {
            for (Instance instance : cluster) {
                instance.coordinator().fire(ExecutionSource.NORMAL, fireTime);
            }
        }

        List<LedgerFire> fires = cluster.get(0).coordinator().ledger().recentFires(10);

        assertThat(fires).extracting(LedgerFire::fireTime).containsExactly(second, first);
        LedgerFire latest = fires.get(0);
        assertThat(latest.settled()).isTrue();
        assertThat(latest.items()).extracting(LedgerFire.Item::item).containsExactly(0, 1, 2, 3);
        assertThat(latest.items()).allSatisfy(item -> {
            assertThat(item.state()).isEqualTo(ClaimState.DONE);
            assertThat(item.source()).isEqualTo(ExecutionSource.NORMAL);
            assertThat(item.live()).isTrue();
            assertThat(item.fencingToken()).isPositive();
            assertThat(item.ended()).isNotNull();
        });
        assertThat(latest.items()).extracting(LedgerFire.Item::instanceId).containsOnly("a", "b");
        assertThat(cluster.get(1).coordinator().ledger().recentFires(1))
                .extracting(LedgerFire::fireTime)
                .containsExactly(second);
    }

    @Test
    void showsARunningItemWithTheFencingTokenItsRunWasGiven() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Map<Integer, Long> tokens = new ConcurrentHashMap<>();
        Instance instance = start("only", FOUR_ITEMS, (ShardingContext context) -> {
            tokens.put(context.item(), context.fencingToken());
            if (context.item() == 2) {
                release.await(30, TimeUnit.SECONDS);
            }
        });
        await().atMost(WITHIN).until(() -> settledAt(4, List.of(instance)));
        Instant fireTime = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try {
            instance.coordinator().fireAsync(ExecutionSource.MANUAL, fireTime);
            await().atMost(WITHIN).until(() -> tokens.size() == 4);

            LedgerFire fire = instance.coordinator().ledger().recentFires(5).get(0);

            assertThat(fire.fireTime()).isEqualTo(fireTime);
            assertThat(fire.settled()).isFalse();
            LedgerFire.Item running = fire.items().get(2);
            assertThat(running.state()).isEqualTo(ClaimState.RUNNING);
            assertThat(running.source()).isEqualTo(ExecutionSource.MANUAL);
            assertThat(running.fencingToken()).isEqualTo(tokens.get(2));
            assertThat(running.ended()).isNull();
        } finally {
            release.countDown();
        }
    }

    @Test
    void refusesALimitBelowOne() throws Exception {
        Instance instance = start("only", FOUR_ITEMS, context -> {});

        assertThatIllegalArgumentException()
                .isThrownBy(() -> instance.coordinator().ledger().recentFires(0));
    }
}
