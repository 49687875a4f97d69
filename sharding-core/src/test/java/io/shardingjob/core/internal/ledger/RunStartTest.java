package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.DueRule.Due;
import io.shardingjob.core.internal.ledger.RunStart.Here;
import io.shardingjob.core.internal.ledger.RunStart.Verdict;
import java.time.Instant;
import java.util.Set;
import java.util.function.Predicate;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunStartTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T00:00:00Z");

    private static final long SESSION = 7;

    private static Claim reserved(int item, long session) {
        return Claim.first(item, FIRE, "a", session, ExecutionSource.NORMAL, 1, 4, FIRE);
    }

    private static Here here(
            boolean available, boolean jobDisabled, boolean instanceDisabled, Set<Integer> owned, Set<Integer> off) {
        return here(available, jobDisabled, instanceDisabled, owned, Set.of(), off, slot -> true);
    }

    private static Here here(
            boolean available,
            boolean jobDisabled,
            boolean instanceDisabled,
            Set<Integer> owned,
            Set<Integer> contested,
            Set<Integer> off,
            Predicate<LedgerRules.Slot> due) {
        return new Here(
                SESSION,
                available,
                jobDisabled,
                instanceDisabled ? Set.of() : owned,
                contested,
                off,
                slot -> due.test(slot) ? Due.YES : Due.NO);
    }

    /** Of a due item-fire: one whose job or item was disabled after it was queued waits for its owner, once enabled. */
    @ParameterizedTest(name = "abandoned={0} available={1} jobOff={2} instanceOff={3} owned={4} itemOff={5} -> {6}")
    @CsvSource({
        "false, true,  false, false, true,  false, START",
        "true,  true,  false, false, true,  false, GIVE_UP",
        "false, false, false, false, true,  false, GIVE_UP",
        "false, true,  true,  false, true,  false, GIVE_UP",
        "false, true,  false, false, true,  true,  GIVE_UP",
        "false, true,  false, true,  true,  false, GIVE_UP",
        "false, true,  false, false, false, false, GIVE_UP",
        "true,  false, true,  true,  false, true,  GIVE_UP",
    })
    void decidesWhetherAQueuedRunStartsFromWhatHoldsWhenItLeavesTheQueue(
            boolean abandoned,
            boolean available,
            boolean jobDisabled,
            boolean instanceDisabled,
            boolean owned,
            boolean itemDisabled,
            Verdict expected) {
        Here here = here(
                available,
                jobDisabled,
                instanceDisabled,
                owned ? Set.of(2) : Set.of(1),
                itemDisabled ? Set.of(2) : Set.of());

        assertThat(RunStart.decide(reserved(2, SESSION), abandoned, here)).isEqualTo(expected);
    }

    @Test
    void aRunOfAnItemFireThatWasNotDueIsRecordedAsNotRunWhateverHoldsNow() {
        Predicate<LedgerRules.Slot> notDue = slot -> false;

        assertThat(RunStart.decide(
                        reserved(2, SESSION), false, here(true, false, false, Set.of(2), Set.of(), Set.of(), notDue)))
                .as("disabled at its fire, enabled since")
                .isEqualTo(Verdict.SKIP);
        assertThat(RunStart.decide(
                        reserved(2, SESSION), false, here(true, false, false, Set.of(1), Set.of(), Set.of(), notDue)))
                .as("beyond a lowered count, owned by nobody")
                .isEqualTo(Verdict.SKIP);
        assertThat(RunStart.decide(
                        reserved(2, SESSION), true, here(true, false, false, Set.of(2), Set.of(), Set.of(), notDue)))
                .as("abandoned: its session may not write it")
                .isEqualTo(Verdict.GIVE_UP);
    }

    @Test
    void aRunWhoseItemFireIsNotKnownYetToBeDueIsHandedOnToBeDecidedAgainNotSkipped() {
        Here lagging = new Here(SESSION, true, false, Set.of(2), Set.of(), Set.of(), slot -> Due.NOT_KNOWN_YET);
        Claim queued = reserved(2, SESSION);

        Verdict verdict = RunStart.decide(queued, false, lagging);

        assertThat(verdict).isEqualTo(Verdict.GIVE_UP);
        assertThat(RunStart.refusedAs(queued, false, verdict)).isEqualTo(ClaimState.HANDED_ON);
        assertThat(RunStart.refusedAs(queued, true, verdict)).isEqualTo(ClaimState.HANDED_ON);
    }

    @Test
    void anOwnedItemNoAuditClearedIsHandedOnForTheAuditThatWaitsForItsOtherRun() {
        Here contested = here(true, false, false, Set.of(2), Set.of(2), Set.of(), slot -> true);

        assertThat(RunStart.decide(reserved(2, SESSION), false, contested)).isEqualTo(Verdict.GIVE_UP);
        assertThat(RunStart.decide(
                        reserved(3, SESSION),
                        false,
                        here(true, false, false, Set.of(3), Set.of(2), Set.of(), slot -> true)))
                .isEqualTo(Verdict.START);
    }

    @Test
    void aClaimOfAnEarlierSessionNeverStartsUnderTheCurrentOne() {
        Here everythingFine = here(true, false, false, Set.of(2), Set.of());

        assertThat(RunStart.decide(reserved(2, SESSION - 1), false, everythingFine))
                .isEqualTo(Verdict.GIVE_UP);
    }

    @Test
    void aRefusedClaimIsHandedOnWhenNothingOfItRanAndReleasedWhenARunOfItStarted() {
        Claim reserved = reserved(2, SESSION);

        assertThat(RunStart.givenUpAs(reserved)).isEqualTo(ClaimState.HANDED_ON);
        assertThat(RunStart.givenUpAs(reserved.startedAt(FIRE))).isEqualTo(ClaimState.RELEASED);
    }

    @Test
    void anEarlierSessionsRunningClaimIsHandedOnWhenItsProcessKnowsTheRunNeverBeganAndReleasedOtherwise() {
        Claim running = reserved(2, SESSION).startedAt(FIRE);
        Claim reserved = reserved(2, SESSION);

        // Its start was sent and never answered, so the run did not begin: under failover off it still runs.
        assertThat(RunStart.releasedAs(running, true)).isEqualTo(ClaimState.HANDED_ON);
        // The run may have begun: cut, it is not repeated under failover off.
        assertThat(RunStart.releasedAs(running, false)).isEqualTo(ClaimState.RELEASED);
        assertThat(RunStart.releasedAs(reserved, false)).isEqualTo(ClaimState.HANDED_ON);
        assertThat(TakeOverRule.runsOrphan(running.with(RunStart.releasedAs(running, true), FIRE), false))
                .isTrue();
        assertThat(TakeOverRule.runsOrphan(running.with(RunStart.releasedAs(running, false), FIRE), false))
                .isFalse();
    }

    @Test
    void aRetryContinuesItsRunWhereverTheItemMovedButNeverOnAnotherSessionOrWhileCutOff() {
        Claim running = reserved(2, SESSION).startedAt(FIRE);
        Here moved = here(true, false, false, Set.of(1), Set.of());

        assertThat(RunStart.decideRetry(running, false, moved)).isEqualTo(Verdict.START);
        assertThat(RunStart.decideRetry(running, true, moved)).isEqualTo(Verdict.GIVE_UP);
        assertThat(RunStart.decideRetry(running, false, here(false, false, false, Set.of(2), Set.of())))
                .isEqualTo(Verdict.GIVE_UP);
        assertThat(RunStart.decideRetry(reserved(2, SESSION - 1).startedAt(FIRE), false, moved))
                .isEqualTo(Verdict.GIVE_UP);
    }

    /** Whatever holds, a run starts only when every condition allows it: no combination lets a refused one through. */
    /**
     * A run whose start was written before it left the queue checks, as it leaves, what any queued run checks; it begins
     * without another write only on a session proven within a ninth of its timeout (a proof the checks need not renew
     * yet), and writes its start again otherwise. Refused, it is handed on (skipped when not due), never released: nothing of it ran.
     */
    @ParameterizedTest(name = "available={0} owned={1} due={2} provenMs={3} -> {4} as {5}")
    @CsvSource({
        "true,  true,  true,  100,  BEGIN,   ",
        "true,  true,  true,  555,  BEGIN,   ",
        "true,  true,  true,  556,  START,   ",
        "true,  true,  true,  1666, START,   ",
        "true,  true,  true,  -1,   START,   ",
        "false, true,  true,  100,  GIVE_UP, HANDED_ON",
        "true,  false, true,  100,  GIVE_UP, HANDED_ON",
        "false, true,  true,  -1,   GIVE_UP, HANDED_ON",
        "true,  true,  false, 100,  SKIP,    SKIPPED",
    })
    void aStartWrittenBeforeItsRunLeftBeginsItWithoutAWriteOnlyOnASessionProvenWithinANinthOfItsTimeout(
            boolean available, boolean owned, boolean due, long provenMillis, Verdict expected, ClaimState givenUpAs) {
        Claim written = reserved(1, SESSION).startedAt(FIRE);
        Here here = here(available, false, false, owned ? Set.of(1) : Set.of(), Set.of(), Set.of(), slot -> due);
        java.time.Duration since = provenMillis < 0 ? null : java.time.Duration.ofMillis(provenMillis);
        Verdict verdict = RunStart.decideWritten(written, false, here, true, since, java.time.Duration.ofMillis(5_000));
        assertThat(verdict).isEqualTo(expected);
        if (verdict != Verdict.START && verdict != Verdict.BEGIN) {
            assertThat(RunStart.unbegunAs(verdict)).isEqualTo(givenUpAs);
            assertThat(RunStart.unbegunAs(verdict)).isNotEqualTo(ClaimState.RELEASED);
        }
    }

    /**
     * A start written ahead under failover on does not begin its run once an operator switched failover off: the run
     * writes its own start, so that a run that begins under failover off is never one a take-over repeats.
     */
    @Test
    void aStartWrittenAheadBeginsItsRunWithoutAWriteOnlyWhileFailoverIsStillOn() {
        Claim written = reserved(1, SESSION).startedAheadAt(FIRE);
        Here here = here(true, false, false, Set.of(1), Set.of());
        java.time.Duration proven = java.time.Duration.ofMillis(100);
        java.time.Duration timeout = java.time.Duration.ofMillis(5_000);

        assertThat(RunStart.decideWritten(written, false, here, true, proven, timeout))
                .isEqualTo(Verdict.BEGIN);
        assertThat(RunStart.decideWritten(written, false, here, false, proven, timeout))
                .isEqualTo(Verdict.START);
        assertThat(written.startedAt(FIRE).startAhead())
                .as("its own start, written again")
                .isFalse();
    }

    /**
     * A refused run's claim is skipped when not due, handed on when nothing of it ran (its start written before it left
     * the queue or not), and released only when a run of it started before (a retry's claim, written without a start
     * ahead).
     */
    @ParameterizedTest(name = "{0} start written={1} {2} -> {3}")
    @CsvSource({
        "RESERVED, false, GIVE_UP, HANDED_ON",
        "RESERVED, false, SKIP,    SKIPPED",
        "RUNNING,  false, GIVE_UP, RELEASED",
        "RUNNING,  false, START,   RELEASED",
        "RUNNING,  true,  GIVE_UP, HANDED_ON",
        "RUNNING,  true,  START,   HANDED_ON",
        "RUNNING,  true,  SKIP,    SKIPPED",
    })
    void aRefusedRunIsReleasedOnlyWhenARunOfItStartedBefore(
            ClaimState state, boolean startWritten, Verdict verdict, ClaimState expected) {
        Claim claim = reserved(1, SESSION);
        Claim refused = state == ClaimState.RUNNING ? claim.startedAt(FIRE) : claim;

        assertThat(RunStart.refusedAs(refused, startWritten, verdict)).isEqualTo(expected);
    }

    /** A written start never lets through a run the rule refuses, however lately the session was proven. */
    @Property
    void aWrittenStartBeginsOnlyWhatTheRuleLetsStart(
            @ForAll boolean abandoned,
            @ForAll boolean available,
            @ForAll boolean owned,
            @ForAll boolean due,
            @ForAll @IntRange(min = 5, max = 8) long claimSession,
            @ForAll @IntRange(min = -1, max = 4_000) int provenMillis,
            @ForAll boolean failover) {
        Here here = here(available, false, false, owned ? Set.of(1) : Set.of(), Set.of(), Set.of(), slot -> due);
        Claim written = reserved(1, claimSession).startedAheadAt(FIRE);
        java.time.Duration since = provenMillis < 0 ? null : java.time.Duration.ofMillis(provenMillis);

        Verdict verdict =
                RunStart.decideWritten(written, abandoned, here, failover, since, java.time.Duration.ofMillis(3_000));

        Verdict rule = RunStart.decide(written, abandoned, here);
        if (rule != Verdict.START) {
            assertThat(verdict).isEqualTo(rule);
        } else {
            assertThat(verdict)
                    .isEqualTo(failover && provenMillis >= 0 && provenMillis <= 333 ? Verdict.BEGIN : Verdict.START);
        }
    }

    @Property
    void aRunStartsOnlyOnItsOwnSessionWhileAvailableEnabledAndOwnedAndNotAbandoned(
            @ForAll boolean abandoned,
            @ForAll boolean available,
            @ForAll boolean jobDisabled,
            @ForAll boolean instanceDisabled,
            @ForAll @IntRange(min = 0, max = 3) int item,
            @ForAll @IntRange(min = 0, max = 3) int ownedItem,
            @ForAll @IntRange(min = 0, max = 4) int disabledItem,
            @ForAll @IntRange(min = 0, max = 4) int contestedItem,
            @ForAll @IntRange(min = 5, max = 8) long claimSession,
            @ForAll boolean due) {
        Here here = here(
                available,
                jobDisabled,
                instanceDisabled,
                Set.of(ownedItem),
                Set.of(contestedItem),
                Set.of(disabledItem),
                slot -> due);
        Claim claim = reserved(item, claimSession);

        Verdict verdict = RunStart.decide(claim, abandoned, here);

        boolean allowed = !abandoned
                && due
                && available
                && claimSession == SESSION
                && !jobDisabled
                && !instanceDisabled
                && item == ownedItem
                && item != contestedItem
                && item != disabledItem;
        assertThat(verdict == Verdict.START).isEqualTo(allowed);
        if (verdict == Verdict.SKIP) {
            // Recorded as not run only when it was not due, and only by its own available session.
            assertThat(due).isFalse();
            assertThat(!abandoned && available && claimSession == SESSION).isTrue();
        }
    }
}
