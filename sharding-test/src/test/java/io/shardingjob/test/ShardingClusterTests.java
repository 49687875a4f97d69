package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The kit as a user's test uses it: instances of an application, a fire judged, a fault injected into one. An instance
 * frozen mid-item, whose write is refused: {@code examples/fenced-settlement}'s tests.
 */
@ShardingTest
class ShardingClusterTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aFireRunsEveryItemOnceOverTwoInstancesAndIsJudgedFromTheLedgerAndTheirRuns(ShardingCluster cluster) {
        cluster.start("app-1", SettlementApplication.class);
        cluster.start("app-2", SettlementApplication.class);
        cluster.awaitSettled("settlement");

        FireRecord fire = cluster.fireAndAwait("settlement");

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(fire.runs()).extracting(ExecutionRecord::instance).containsOnly("app-1", "app-2");
        assertThat(fire.runs()).extracting(ExecutionRecord::item).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void anInstanceWhoseSessionTheServerEndedRegistersAgainAndTheNextFireRunsEveryItemOnce(ShardingCluster cluster) {
        ShardingInstance first = cluster.start("app-1", SettlementApplication.class);
        cluster.start("app-2", SettlementApplication.class);
        cluster.awaitSettled("settlement");

        first.expireSession();

        await().atMost(PATIENCE).until(first::isConnected);
        cluster.awaitSettled("settlement");
        cluster.fireAndAwait("settlement").assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
    }

    @Test
    void theJudgementsNameTheJobTheFireTheItemAndTheRunsAtFault() {
        Instant fire = Instant.parse("2026-11-30T10:15:00Z");
        ExecutionRecord onFirst = run(0, "app-1", fire.plusMillis(10), fire.plusMillis(2_000));
        ExecutionRecord onSecond = run(0, "app-2", fire.plusMillis(1_000), fire.plusMillis(3_000));
        FireRecord twice = new FireRecord(
                "settlement",
                fire,
                1,
                new io.shardingjob.core.execution.LedgerFire(
                        fire,
                        true,
                        List.of(new io.shardingjob.core.execution.LedgerFire.Item(
                                0,
                                io.shardingjob.core.execution.ClaimState.DONE,
                                "app-2",
                                true,
                                io.shardingjob.core.execution.ExecutionSource.FAILOVER,
                                2,
                                0,
                                9,
                                fire.plusMillis(1_000),
                                fire.plusMillis(3_000),
                                null)),
                        List.of(),
                        List.of(),
                        null),
                List.of(onFirst, onSecond));

        assertThatThrownBy(twice::assertEveryItemRanOnce)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Job 'settlement', fire at 2026-11-30T10:15:00Z: expected every item to run once")
                .hasMessageContaining("item 0 succeeded 2 times");
        assertThatThrownBy(twice::assertNoItemRanOnTwoInstancesAtOnce)
                .hasMessageContaining("item 0 ran at once on [app-1 2026-11-30T10:15:00.010Z..2026-11-30T10:15:02Z");
    }

    private static ExecutionRecord run(int item, String instance, Instant start, Instant end) {
        return new ExecutionRecord(
                "settlement",
                item,
                "north",
                instance,
                1,
                Instant.parse("2026-11-30T10:15:00Z"),
                start,
                end,
                Outcome.SUCCESS,
                io.shardingjob.core.execution.ExecutionSource.NORMAL,
                null,
                1,
                "",
                0);
    }
}
