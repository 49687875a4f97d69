package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.boot.console.FireHistory.Fire;
import io.shardingjob.boot.console.FireHistory.FireOutcome;
import io.shardingjob.boot.console.FireHistory.Item;
import io.shardingjob.boot.console.FireHistory.ItemState;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** How the ledger's claims and the log's runs of a job's fires become the rows and marks the console shows. */
class FireHistoryTests {

    private final Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);

    private final Instant second = first.plusSeconds(10);

    private final Instant third = first.plusSeconds(20);

    @Test
    void joinsTheLedgerAndTheLogByFireTimeNewestFirst() {
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(third, claim(0, ClaimState.RUNNING, true, ExecutionSource.NORMAL, 42))),
                List.of(
                        run(second, 1, Outcome.SUCCESS, ExecutionSource.NORMAL, null),
                        run(second, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null),
                        run(first, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null)),
                20);
        assertThat(fires).extracting(Fire::fireTime).containsExactly(third, second, first);
        assertThat(fires)
                .extracting(Fire::outcome)
                .containsExactly(FireOutcome.RUNNING, FireOutcome.SUCCESS, FireOutcome.SUCCESS);
        assertThat(fires.get(0).inLedger()).isTrue();
        assertThat(fires.get(1).inLedger()).isFalse();
        assertThat(fires.get(0).items()).singleElement().satisfies(item -> {
            assertThat(item.state()).isEqualTo(ItemState.RUNNING);
            assertThat(item.fencingToken()).isEqualTo(42L);
        });
    }

    @Test
    void anItemsLastRunInTheLogGivesItsOutcomeDurationAndErrorWithTheLedgersToken() {
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(first, claim(0, ClaimState.DONE, true, ExecutionSource.NORMAL, 7))),
                List.of(
                        run(first, 0, Outcome.SUCCESS, ExecutionSource.RETRY, null),
                        run(first, 0, Outcome.FAILED, ExecutionSource.NORMAL, "java.lang.IllegalStateException: no")),
                20);
        assertThat(fires).singleElement().satisfies(fire -> {
            assertThat(fire.outcome()).isEqualTo(FireOutcome.SUCCESS);
            assertThat(fire.items()).singleElement().satisfies(item -> {
                assertThat(item.state()).isEqualTo(ItemState.SUCCESS);
                assertThat(item.source()).isEqualTo(ExecutionSource.RETRY);
                assertThat(item.duration()).isEqualTo(Duration.ofMillis(250));
                assertThat(item.fencingToken()).isEqualTo(7L);
            });
        });
    }

    @Test
    void anItemShowsTheLastCheckpointOfItsClaimWhetherTheLogOrTheLedgerSaysHowItStands() {
        LedgerFire.Item failed = new LedgerFire.Item(
                0,
                ClaimState.FAILED,
                "instance-a",
                true,
                ExecutionSource.NORMAL,
                1,
                0,
                7,
                first.plusMillis(5),
                first.plusMillis(255),
                "page=12");
        LedgerFire.Item running = new LedgerFire.Item(
                1,
                ClaimState.RUNNING,
                "instance-a",
                true,
                ExecutionSource.NORMAL,
                1,
                0,
                8,
                first.plusMillis(5),
                null,
                "page=3");
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(first, failed, running)),
                List.of(run(first, 0, Outcome.FAILED, ExecutionSource.NORMAL, "boom")),
                20);

        assertThat(fires.get(0).items())
                .extracting(Item::state, Item::fencingToken, Item::checkpoint)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ItemState.FAILED, 7L, "page=12"),
                        org.assertj.core.groups.Tuple.tuple(ItemState.RUNNING, 8L, "page=3"));
    }

    @Test
    void anOpenClaimWinsOverAnEarlierRunInTheLog() {
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(first, claim(0, ClaimState.RUNNING, false, ExecutionSource.FAILOVER, 9))),
                List.of(run(first, 0, Outcome.FAILED, ExecutionSource.NORMAL, "boom")),
                20);
        assertThat(fires.get(0).items().get(0).state()).isEqualTo(ItemState.WAITING);
        assertThat(fires.get(0).outcome()).isEqualTo(FireOutcome.WAITING);
    }

    @Test
    void aSettledClaimOfARunThatStartedAfterTheLoggedOneEndedWinsOverTheLog() {
        LedgerFire.Item reRunElsewhere = new LedgerFire.Item(
                0,
                ClaimState.DONE,
                "instance-b",
                true,
                ExecutionSource.RETRY,
                1,
                0,
                12,
                first.plusSeconds(30),
                first.plusSeconds(31),
                null);
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(first, reRunElsewhere)),
                List.of(run(first, 0, Outcome.FAILED, ExecutionSource.NORMAL, "boom")),
                20);
        assertThat(fires.get(0).items()).singleElement().satisfies(item -> {
            assertThat(item.state()).isEqualTo(ItemState.SUCCESS);
            assertThat(item.instance()).isEqualTo("instance-b");
            assertThat(item.source()).isEqualTo(ExecutionSource.RETRY);
        });
        assertThat(fires.get(0).outcome()).isEqualTo(FireOutcome.SUCCESS);
    }

    @Test
    void theNewOwnersSettledClaimWinsOverARunHereThatWasFencedOutThoughTheZombieEndedLast() {
        // The zombie resumed and was refused after its successor's run had ended: the log's run is the later one.
        LedgerFire.Item takenOver = new LedgerFire.Item(
                0,
                ClaimState.DONE,
                "instance-b",
                true,
                ExecutionSource.FAILOVER,
                0,
                0,
                12,
                first.minusSeconds(1),
                first.plusMillis(100),
                null);
        List<Fire> fires = FireHistory.of(
                List.of(ledgerFire(first, takenOver)),
                List.of(run(first, 0, Outcome.FENCED_OUT, ExecutionSource.NORMAL, "FencedOutException")),
                20);
        assertThat(fires.get(0).items()).singleElement().satisfies(item -> {
            assertThat(item.state()).isEqualTo(ItemState.SUCCESS);
            assertThat(item.instance()).isEqualTo("instance-b");
        });
        assertThat(fires.get(0).outcome()).isEqualTo(FireOutcome.SUCCESS);
    }

    @Test
    void aFireIsNamedByItsMostTellingSource() {
        assertThat(sourceOf(ExecutionSource.FAILOVER, ExecutionSource.MANUAL)).isEqualTo(ExecutionSource.MANUAL);
        assertThat(sourceOf(ExecutionSource.RETRY, ExecutionSource.NORMAL)).isEqualTo(ExecutionSource.NORMAL);
        assertThat(sourceOf(ExecutionSource.FAILOVER, ExecutionSource.MISFIRE)).isEqualTo(ExecutionSource.MISFIRE);
        assertThat(sourceOf(ExecutionSource.RETRY)).isEqualTo(ExecutionSource.RETRY);
        assertThat(sourceOf(ExecutionSource.FAILOVER, ExecutionSource.UPSTREAM, ExecutionSource.RETRY))
                .isEqualTo(ExecutionSource.UPSTREAM);
    }

    @Test
    void aFailureOfAnyItemFailsTheFireAndOnlySkippedItemsSkipIt() {
        assertThat(outcomeOf(Outcome.SUCCESS, Outcome.FAILED)).isEqualTo(FireOutcome.FAILED);
        assertThat(outcomeOf(Outcome.SUCCESS, Outcome.TIMED_OUT)).isEqualTo(FireOutcome.TIMED_OUT);
        assertThat(outcomeOf(Outcome.SUCCESS, Outcome.SUCCESS)).isEqualTo(FireOutcome.SUCCESS);
        List<Fire> skipped = FireHistory.of(
                List.of(ledgerFire(
                        first,
                        claim(0, ClaimState.SKIPPED, true, ExecutionSource.NORMAL, 1),
                        claim(1, ClaimState.COALESCED, true, ExecutionSource.NORMAL, 2))),
                List.of(),
                20);
        assertThat(skipped.get(0).outcome()).isEqualTo(FireOutcome.SKIPPED);
    }

    @Test
    void warnsOfALastFireThatFailedAndOfAMissedFireMadeUp() {
        List<Fire> failed = FireHistory.of(
                List.of(),
                List.of(
                        run(second, 0, Outcome.FAILED, ExecutionSource.NORMAL, "boom"),
                        run(first, 0, Outcome.SUCCESS, ExecutionSource.MISFIRE, null)),
                20);
        assertThat(FireHistory.warnings(failed))
                .satisfiesExactly(
                        warning -> assertThat(warning).startsWith("the last fire (" + second + ") failed"),
                        warning -> assertThat(warning).contains("missed and made up"));
        List<Fire> healthy =
                FireHistory.of(List.of(), List.of(run(first, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null)), 20);
        assertThat(FireHistory.warnings(healthy)).isEmpty();
    }

    @Test
    void keepsTheNewestFiresUpToTheLimit() {
        List<Fire> fires = FireHistory.of(
                List.of(),
                List.of(
                        run(third, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null),
                        run(second, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null),
                        run(first, 0, Outcome.SUCCESS, ExecutionSource.NORMAL, null)),
                2);
        assertThat(fires).extracting(Fire::fireTime).containsExactly(third, second);
    }

    private ExecutionSource sourceOf(ExecutionSource... sources) {
        ExecutionRecord[] runs = new ExecutionRecord[sources.length];
        for (int item = 0; item < sources.length; item++) {
            runs[item] = run(first, item, Outcome.SUCCESS, sources[item], null);
        }
        return FireHistory.of(List.of(), List.of(runs), 20).get(0).source();
    }

    private FireOutcome outcomeOf(Outcome... outcomes) {
        ExecutionRecord[] runs = new ExecutionRecord[outcomes.length];
        for (int item = 0; item < outcomes.length; item++) {
            runs[item] = run(first, item, outcomes[item], ExecutionSource.NORMAL, null);
        }
        return FireHistory.of(List.of(), List.of(runs), 20).get(0).outcome();
    }

    private static LedgerFire ledgerFire(Instant fireTime, LedgerFire.Item... items) {
        boolean settled = List.of(items).stream().noneMatch(item -> item.state().isOpen());
        return new LedgerFire(fireTime, settled, List.of(items), List.of(), List.of(), null);
    }

    private LedgerFire.Item claim(int item, ClaimState state, boolean live, ExecutionSource source, long token) {
        return new LedgerFire.Item(
                item,
                state,
                "instance-a",
                live,
                source,
                1,
                0,
                token,
                first,
                state.isOpen() ? null : first.plusMillis(100),
                null);
    }

    private static ExecutionRecord run(
            Instant fireTime, int item, Outcome outcome, ExecutionSource source, @Nullable String failure) {
        Instant start = fireTime.plusMillis(5);
        return new ExecutionRecord(
                "job",
                item,
                "",
                "instance-a",
                1,
                fireTime,
                start,
                start.plusMillis(250),
                outcome,
                source,
                failure,
                2,
                "",
                source == ExecutionSource.RETRY ? 1 : 0);
    }
}
