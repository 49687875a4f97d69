package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The leader's upkeep against a real ZooKeeper server. */
class LedgerKeeperTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("settlement");

    private static final FireSchedule EVERY_SECOND =
            (configuration, after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1);

    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(30);

    private LedgerParts ledger;

    @BeforeEach
    void createTheLedger() throws Exception {
        newClient().create().creatingParentsIfNeeded().forPath(NODES.ledger());
        ledger = LedgerParts.of(newClient(), NODES);
    }

    @Test
    void theWatermarkStopsBeforeAScheduledFireThatNobodyClaimedBeforeASettledOneWhichIsRecordedForTheAudits()
            throws Exception {
        settle(start);
        settle(start.plusSeconds(4));

        LedgerOverview kept = keeper(job(false), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join();

        assertThat(kept.watermark()).isEqualTo(start);
        // Only the scheduled fires before the settled one: a later one may still wait in its instance's queue.
        assertThat(ledger.reads().fires())
                .containsExactly(
                        start, start.plusSeconds(1), start.plusSeconds(2), start.plusSeconds(3), start.plusSeconds(4));
        assertThat(ledger.reads().read(List.of(start.plusSeconds(2))).get(0).claims())
                .isEmpty();
        // The audit that follows the pass starts from what it left, the fires it recorded included: it makes them up
        // now, not after the next pass.
        assertThat(kept.fires()).isEqualTo(ledger.reads().fires());
    }

    @Test
    void aFireThisInstanceWasToldOfCountsAsDueWithoutASchedule() throws Exception {
        settle(start);
        settle(start.plusSeconds(4));
        Instant manual = start.plusMillis(2_500);

        Instant through = new LedgerKeeper(
                        new LedgerKeeper.Ledger(ledger.reads(), ledger.sessions(), ledger.keeper(), ledger.awaited()),
                        null,
                        new LedgerKeeper.Horizons(Duration.ofMinutes(1), Duration.ofMinutes(10)),
                        new DueFires(
                                ledger.claims(),
                                FireSchedule.NONE,
                                () -> job(false),
                                () -> Set.of(manual),
                                () -> ScheduleHistory.EMPTY,
                                List::of),
                        Runnable::run,
                        new RecordedEnds(100),
                        fireTime -> false)
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(start);
        assertThat(ledger.reads().fires()).containsExactly(start, manual, start.plusSeconds(4));
    }

    @Test
    void nothingIsDueForAJobThatNeverFiredOrIsDisabled() throws Exception {
        keeper(job(false), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join();
        assertThat(ledger.reads().fires()).isEmpty();

        settle(start);
        Instant through = keeper(job(true), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(ledger.reads().fires()).containsExactly(start);
        assertThat(through).isEqualTo(start);
    }

    @Test
    void aFireWhoseEveryItemEndedHereIsSettledWithoutReadingIt() throws Exception {
        Claim running = claim(start);
        claim(start.plusSeconds(1));
        // Recorded here as ended, while the ledger still shows it running: only a keeper that did not read it passes
        // it.
        ends.recorded(running.with(ClaimState.DONE, start));

        Instant through = keeper(job(false), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(start);
    }

    @Test
    void settledFiresPastTheRetentionAreDeletedInOnePass() throws Exception {
        for (int fire = 0; fire < 5; fire++) {
            settle(start.plusSeconds(fire));
        }

        Instant through = keeper(job(false), Set.of())
                .pass(start.plusSeconds(180), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(start.plusSeconds(4));
        assertThat(ledger.reads().fires()).isEmpty();
    }

    @Test
    void aPassThatLeavesMoreFiresThanItTakesSaysItIsBehindAndTheNextOneCatchesUp() throws Exception {
        int fires = LedgerKeeper.FIRES_PER_PASS + 4;
        for (int fire = 0; fire < fires; fire++) {
            settle(start.plusSeconds(fire));
        }
        LedgerKeeper keeper = keeper(job(false), Set.of());
        Instant now = start.plusSeconds(fires + 120);

        Instant first = keeper.pass(now, ledger.proof().sessionId()).join().watermark();

        assertThat(first).isEqualTo(start.plusSeconds(LedgerKeeper.FIRES_PER_PASS - 1));
        assertThat(keeper.isBehind()).isTrue();
        assertThat(ledger.reads().fires()).hasSize(4);

        Instant second = keeper.pass(now, ledger.proof().sessionId()).join().watermark();

        assertThat(second).isEqualTo(start.plusSeconds(fires - 1));
        assertThat(keeper.isBehind()).isFalse();
        assertThat(ledger.reads().fires()).isEmpty();
    }

    @Test
    void aBacklogThatCannotMoveDoesNotCountAsBehind() throws Exception {
        int fires = LedgerKeeper.FIRES_PER_PASS + 4;
        // Five a second, all still running here and younger than the retention: the watermark waits for them.
        for (int fire = 0; fire < fires; fire++) {
            claim(start.plusMillis(200L * fire));
            openHere.add(start.plusMillis(200L * fire));
        }
        LedgerKeeper keeper = keeper(job(false), Set.of());

        Instant through = keeper.pass(
                        start.plusMillis(200L * fires), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isBefore(start);
        assertThat(keeper.isBehind()).isFalse();
        assertThat(ledger.reads().fires()).hasSize(fires);
    }

    @Test
    void aFireNodeCreatedAheadForATimeTheScheduleDoesNotHaveIsPassedOverAndRetired() throws Exception {
        settle(start);
        createAhead(start.plusMillis(500));
        settle(start.plusSeconds(1));

        Instant through = keeper(job(false), Set.of())
                .pass(start.plusSeconds(180), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(start.plusSeconds(1));
    }

    @Test
    void aFireNodeCreatedAheadForAScheduledFireNobodyClaimedHoldsTheWatermarkBackAsAMissedFire() throws Exception {
        settle(start);
        createAhead(start.plusSeconds(1));
        settle(start.plusSeconds(2));

        Instant through = keeper(job(false), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(start);
        FireView missed = ledger.reads().read(List.of(start.plusSeconds(1))).get(0);
        assertThat(missed.isAheadOnly()).as("%s", missed).isTrue();
    }

    private void createAhead(Instant fireTime) {
        ledger.claims()
                .commitAsync(List.of(), Instant.EPOCH, List.of(), new FireNodes(false, fireTime), AssignmentGuard.NONE)
                .join();
    }

    @Test
    void aFireStillRunningHereHoldsTheWatermarkBackAndSoDoesEveryLaterOne() throws Exception {
        settle(start);
        settle(start.plusSeconds(1));
        openHere.add(start);

        Instant through = keeper(job(false), Set.of())
                .pass(start.plusSeconds(10), ledger.proof().sessionId())
                .join()
                .watermark();

        assertThat(through).isEqualTo(Instant.EPOCH);
    }

    @Test
    void aRunThatOutlivedTheRetentionKeepsOnlyItsOwnFireOpenAndTheSettledFiresAfterItAreRetired() throws Exception {
        // An item that hangs here, at the first fire; every fire after it settled.
        Claim hung = ledger.claims()
                .commitAsync(List.of(claim(start).startedAt(start)), Instant.EPOCH, List.of())
                .join()
                .written()
                .written()
                .get(0);
        openHere.add(start);
        for (int fire = 1; fire <= 5; fire++) {
            settle(start.plusSeconds(fire));
        }

        LedgerOverview kept = keeper(job(false), Set.of())
                .pass(start.plusSeconds(180), ledger.proof().sessionId())
                .join();

        assertThat(kept.watermark()).isEqualTo(start.plusSeconds(5));
        assertThat(kept.stillOpen()).containsExactly(start);
        assertThat(ledger.reads().overview().stillOpen()).containsExactly(start);
        assertThat(ledger.reads().fires()).containsExactly(start);

        // Once the run ended, the fire is settled like any other, and retired in its turn.
        ledger.claims()
                .commitAsync(List.of(hung.with(ClaimState.DONE, start.plusSeconds(181))), Instant.EPOCH, List.of())
                .join()
                .written();
        openHere.remove(start);
        LedgerOverview settled = keeper(job(false), Set.of())
                .pass(start.plusSeconds(181), ledger.proof().sessionId())
                .join();

        assertThat(settled.watermark()).isEqualTo(start.plusSeconds(5));
        assertThat(settled.stillOpen()).isEmpty();
        assertThat(ledger.reads().overview().stillOpen()).isEmpty();
        assertThat(ledger.reads().fires()).isEmpty();
    }

    private final RecordedEnds ends = new RecordedEnds(100);

    private final Set<Instant> openHere = new java.util.HashSet<>();

    private LedgerKeeper keeper(JobConfiguration job, Set<Instant> seen) {
        return new LedgerKeeper(
                new LedgerKeeper.Ledger(ledger.reads(), ledger.sessions(), ledger.keeper(), ledger.awaited()),
                null,
                new LedgerKeeper.Horizons(Duration.ofMinutes(1), Duration.ofMinutes(10)),
                new DueFires(
                        ledger.claims(), EVERY_SECOND, () -> job, () -> seen, () -> ScheduleHistory.EMPTY, List::of),
                Runnable::run,
                ends,
                openHere::contains);
    }

    private static JobConfiguration job(boolean disabled) {
        return JobConfiguration.builder("settlement")
                .cron("* * * * * *")
                .shardingTotalCount(1)
                .disabled(disabled)
                .build();
    }

    private void settle(Instant fireTime) throws Exception {
        ledger.claims()
                .commitAsync(List.of(claim(fireTime).with(ClaimState.DONE, fireTime)), Instant.EPOCH, List.of())
                .join()
                .written();
    }

    private Claim claim(Instant fireTime) throws Exception {
        return ledger.claims()
                .claimAsync(
                        fireTime,
                        List.of(Claim.first(
                                0, fireTime, "a", ledger.proof().sessionId(), ExecutionSource.NORMAL, 1, 1, fireTime)))
                .join()
                .won()
                .get(0);
    }
}
