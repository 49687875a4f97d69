package io.shardingjob.core.drills;

import static io.shardingjob.core.drills.WorkerLines.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.shardingjob.core.drills.DrillRecords.Interval;
import io.shardingjob.core.drills.DrillRecords.Judgement;
import io.shardingjob.core.drills.DrillRecords.NotDue;
import io.shardingjob.core.drills.DrillRecords.Outcome;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Rules;
import io.shardingjob.core.drills.DrillRecords.Run;
import io.shardingjob.core.drills.DrillRecords.Slot;
import io.shardingjob.core.drills.DrillRecords.Window;
import io.shardingjob.core.internal.ledger.GroupCommit;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The drills' judge on small hand-made tables: two items, fires at 10 s, 11 s, 12 s and 13 s (in epoch ms), items
 * lasting 300 ms.
 */
class DrillRecordsTest {

    private static final Window WINDOW = new Window(at(10_000), at(14_000), Duration.ofSeconds(1), 2);

    private static final long ALIVE = Long.MAX_VALUE;

    @Test
    void findsNothingWrongWhenEveryItemOfEveryFireRanOnce() {
        Judgement judgement = judge(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 11_000), run(0, 12_000), run(0, 13_000))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.slots()).isEqualTo(8);
        assertThat(judgement.missed()).isEmpty();
        assertThat(judgement.doubled()).isEmpty();
        assertThat(judgement.overlaps()).isEmpty();
        assertThat(judgement.cleanAgainAfter()).contains(Duration.ZERO);
        assertThat(judgement.summary("quiet"))
                .isEqualTo("drill quiet: slots=8 missed=0 unfinished=0 abandoned=0 coalesced=0 skipped=0 doubled=0"
                        + " excused=0 overlaps=0 cross-fire-overlaps=0 excused-overlaps=0 late-stops=0 undue=0 failed=0"
                        + " unattributed=0 clean-again-after=0 ms");
    }

    @Test
    void countsASlotWithoutARunAsMissed() {
        Judgement judgement = judge(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 12_000), run(0, 13_000))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.missed()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.coalesced()).isEmpty();
    }

    @Test
    void countsASlotWhoseOnlyRunWasCutByAKillAndNeverRunAgainAsUnfinished() {
        Judgement judgement = judge(
                process("a", 11_150, lines(run(0, 10_000), List.of("start 0 11000 11_010 NORMAL"))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(0, 12_000), run(1, 12_000))));

        assertThat(judgement.unfinished()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.missed()).containsExactly(new Slot(0, at(13_000)), new Slot(1, at(13_000)));
    }

    @Test
    void countsMissedFiresOfAnItemFollowedByOneLateMisfireRunAsCoalesced() {
        Judgement judgement = judge(
                process(
                        "a",
                        ALIVE,
                        lines(
                                run(0, 10_000),
                                // The fires at 11 s and 12 s run once, late, as the fire at 12 s.
                                List.of("start 0 - 12_600 -", "end 0 12000 12_600 12_900 MISFIRE ok"),
                                run(0, 13_000))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.coalesced()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.missed()).isEmpty();
    }

    @Test
    void doesNotCoalesceAMissedFireWhoseItemRanNormallyNext() {
        Judgement judgement = judge(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 12_000), misfire(0, 13_000, 13_400))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.missed()).containsExactly(new Slot(0, at(11_000)));
    }

    @Test
    void excusesTheReRunOfAnItemWhoseProcessWasKilledWhileRunningIt() {
        Judgement judgement = judge(
                process("a", 11_150, lines(run(0, 10_000), List.of("start 0 11000 11_010 NORMAL"))),
                process(
                        "b",
                        ALIVE,
                        lines(
                                run(1, 10_000),
                                run(1, 11_000),
                                failover(0, 11_000, 16_300),
                                run(0, 12_000),
                                run(1, 12_000),
                                run(0, 13_000),
                                run(1, 13_000))));

        assertThat(judgement.doubled()).containsOnlyKeys(new Slot(0, at(11_000)));
        assertThat(judgement.excused()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.unexcused()).isZero();
        assertThat(judgement.overlaps()).isEmpty();
        // The item of 11 s ran twice: fires are clean again from 12 s, a second after the kill.
        assertThat(judgement.cleanAgainAfter()).contains(Duration.ofMillis(850));
    }

    @Test
    void aRunOfAKilledProcessLastsUntilTheKill() {
        Judgement judgement = judge(
                process("a", 11_500, lines(List.of("start 0 11000 11_010 NORMAL"))),
                process(
                        "b",
                        ALIVE,
                        lines(List.of("start 0 11000 11_400 NORMAL", "end 0 11000 11_400 11_700 NORMAL ok"))));

        assertThat(judgement.overlaps()).hasSize(1);
        assertThat(judgement.excused()).isEmpty();
    }

    @Test
    void excusesTheReRunOfAnItemWhoseProcessWasFrozenWhileRunningItAndDoesNotCountTheFreezeAsRunning() {
        Process frozen = new Process(
                "a",
                lines(List.of("start 0 11000 11_100 NORMAL", "end 0 11000 11_100 23_150 NORMAL ok")),
                ALIVE,
                List.of(new Interval(11_200, 23_000)));
        Judgement judgement = judge(
                frozen,
                process("b", ALIVE, lines(failover(0, 11_000, 17_000), List.of("start 0 11000 22_900 FAILOVER"))));

        assertThat(judgement.doubled()).containsOnlyKeys(new Slot(0, at(11_000)));
        // Two excuses are needed (three runs), the frozen run gives one.
        assertThat(judgement.excused()).isEmpty();
        // The run that started at 22.9 s and was still running when the frozen one resumed at 23 s.
        assertThat(judgement.overlaps()).hasSize(1);
        assertThat(DrillRecords.runs(frozen).get(0).active())
                .containsExactly(new Interval(11_100, 11_200), new Interval(23_000, 23_150));
    }

    @Test
    void datesAStartLineAFreezeHeldBackUntilTheThawFromTheFreezeWhenThePrintCameBeforeTheSessionsLoss() {
        // a's start of item 0 of the fire at 11 s was answered at 11.015 s, and a froze before it printed the line; the
        // line came at the thaw (12.5 s), the loss of its session at 12.7 s. b took the run over at 11.6 s.
        List<String> heldBack = List.of(
                "start 0 11000 12_510 NORMAL", "end 0 11000 12_510 12_700 NORMAL failed", "connection LOST 12_700");
        List<String> afterTheLoss = List.of(
                "connection LOST 12_500", "start 0 11000 12_510 NORMAL", "end 0 11000 12_510 12_700 NORMAL failed");
        Process b = process(
                "b",
                ALIVE,
                lines(
                        failover(0, 11_000, 11_600),
                        List.of("start 0 12000 12_400 NORMAL", "end 0 12000 12_400 12_700 NORMAL ok")));

        Judgement dated = judge(frozen(heldBack), b);
        Judgement notDated = judge(frozen(afterTheLoss), b);

        assertThat(DrillRecords.runs(frozen(heldBack)).get(1).start()).isEqualTo(11_015);
        assertThat(dated.excused()).containsExactly(new Slot(0, at(11_000)));
        assertThat(dated.excusedOverlaps()).hasSize(1);
        assertThat(dated.crossFireOverlaps()).isEmpty();
        assertThat(notDated.unexcused()).isEqualTo(1);
        assertThat(notDated.crossFireOverlaps()).hasSize(1);
    }

    /** Ran item 0 of the fire at 10 s, then froze from 11.015 s to 12.5 s and printed {@code after}. */
    private static Process frozen(List<String> after) {
        return new Process("a", lines(run(0, 10_000), after), ALIVE, List.of(new Interval(11_015, 12_500)));
    }

    @Test
    void doesNotExcuseASecondRunOfAFireThatRanToItsEnd() {
        Judgement judgement = judge(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 11_000))),
                process("b", ALIVE, lines(failover(0, 11_000, 16_300), run(1, 10_000), run(1, 11_000))));

        assertThat(judgement.doubled()).containsOnlyKeys(new Slot(0, at(11_000)));
        assertThat(judgement.excused()).isEmpty();
        assertThat(judgement.unexcused()).isEqualTo(1);
    }

    @Test
    void countsTwoRunsOfOneFireAtTheSameTimeAsAnOverlapAndOfTwoFiresApart() {
        Judgement judgement = judge(
                process(
                        "a",
                        ALIVE,
                        lines(List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 11_310 NORMAL ok"))),
                process(
                        "b",
                        ALIVE,
                        lines(
                                List.of("start 0 11000 11_200 NORMAL", "end 0 11000 11_200 11_500 NORMAL ok"),
                                List.of("start 0 10000 11_250 FAILOVER", "end 0 10000 11_250 11_550 FAILOVER ok"))));

        assertThat(judgement.overlaps()).hasSize(1);
        assertThat(judgement.crossFireOverlaps()).hasSize(2);
    }

    @Test
    void takesARunsFireFromItsEndLineWhenItsStartLineDidNotKnowIt() {
        List<Run> runs = DrillRecords.runs(process("b", ALIVE, lines(failover(1, 12_000, 18_000))));

        assertThat(runs).singleElement().satisfies(run -> {
            assertThat(run.fireTime()).isEqualTo(at(12_000));
            assertThat(run.source()).isEqualTo("FAILOVER");
            assertThat(run.outcome()).isEqualTo(Outcome.OK);
        });
    }

    @Test
    void countsAKilledRunWhoseFireNoLineNamedAsUnattributed() {
        Judgement judgement = judge(
                process("a", 18_100, lines(List.of("start 1 - 18_000 -"))),
                // Still running when the records were read: not a fault, only the end of the record.
                process("b", ALIVE, lines(List.of("start 0 - 18_000 -"))));

        assertThat(judgement.unattributed()).isEqualTo(1);
        assertThat(judgement.doubled()).isEmpty();
    }

    @Test
    void isNeverCleanAgainWhenTheWindowsLastFireIsNotClean() {
        Judgement judgement = judge(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 11_000), run(0, 12_000))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.cleanAgainAfter()).isEmpty();
        assertThat(judgement.summary("x")).endsWith("clean-again-after=never");
    }

    @Test
    void isCleanAgainFromTheFirstFireAfterWhichEveryFireRanEveryItemOnceSuccessfully() {
        Judgement judgement = judge(
                process(
                        "a",
                        ALIVE,
                        lines(
                                run(0, 10_000),
                                List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 11_020 NORMAL failed"),
                                run(0, 12_000),
                                run(0, 13_000))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 12_000), run(1, 13_000))));

        assertThat(judgement.failed()).isEqualTo(1);
        // From the fire at 12 s, 850 ms after the fault ended.
        assertThat(judgement.cleanAgainAfter()).contains(Duration.ofMillis(850));
    }

    @Test
    void readsOnlyItsOwnLinesAmongTheLogAndMatchesAnEndToItsStartByItemAndStartTime() {
        List<Run> runs = DrillRecords.runs(process(
                "a",
                ALIVE,
                List.of(
                        "ready 9000",
                        "12:00:01.000 INFO  [main] i.s.c.JobCoordinator - Job drill started on instance a",
                        "start 0 10000 10010 NORMAL",
                        "start 1 10000 10010 NORMAL",
                        "end 1 10000 10010 10310 NORMAL ok",
                        "not-started 0 11000 NORMAL")));

        assertThat(runs)
                .extracting(Run::item, Run::outcome)
                .containsExactly(tuple(0, Outcome.RUNNING), tuple(1, Outcome.OK));
    }

    @Test
    void readsAFollowersRunLinesByTheirJobNameAndTheDrilledJobsByHavingNone() {
        Process both = process(
                "a",
                ALIVE,
                lines(
                        List.of("ready 9000", "completing 10000 10320"),
                        run(0, 10_000),
                        List.of(
                                "start 0 10000 10_500 UPSTREAM follower",
                                "end 0 10000 10_500 10_800 UPSTREAM ok follower",
                                "not-started 1 10000 UPSTREAM follower")));

        assertThat(DrillRecords.runs(both.only(DrillWorker.JOB)))
                .extracting(Run::item, Run::source, Run::start)
                .containsExactly(tuple(0, "NORMAL", 10_010L));
        assertThat(DrillRecords.runs(both.only(DrillWorker.FOLLOWER)))
                .extracting(Run::item, Run::source, Run::start)
                .containsExactly(tuple(0, "UPSTREAM", 10_500L));
        assertThat(both.only(DrillWorker.FOLLOWER).lines())
                .contains("ready 9000", "completing 10000 10320", "not-started 1 10000 UPSTREAM")
                .doesNotContain("start 0 10000 10010 NORMAL");
        assertThat(DrillRecords.runs(both))
                .as("the drilled job's, as before chains")
                .hasSize(1);
    }

    @Test
    void namesStartLinesThatGuessedAnotherFireThanTheirEndLine() {
        Process process =
                process("a", ALIVE, List.of("start 0 11000 11010 NORMAL", "end 0 10000 11010 11310 MISFIRE ok"));

        assertThat(DrillRecords.mismatches(List.of(process))).hasSize(1);
        assertThat(DrillRecords.runs(process))
                .singleElement()
                .extracting(Run::fireTime)
                .isEqualTo(at(10_000));
    }

    @Test
    void countsTwoRunsOfOneItemForTwoFiresOnTwoProcessesAtTheSameTimeAsACrossFireOverlap() {
        Judgement judgement = judge(
                process(
                        "a",
                        ALIVE,
                        lines(List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 12_200 NORMAL ok"))),
                process("b", ALIVE, lines(run(0, 12_000))));

        assertThat(judgement.crossFireOverlaps()).hasSize(1);
        assertThat(judgement.excusedOverlaps()).isEmpty();
    }

    @Test
    void excusesAnOverlapOfAFrozenProcessRunOnlyUntilThatProcessLearnedItLostItsSession() {
        // Frozen at 11.1 s while running the item of 11 s, thawed at 20 s; it learns it lost its session at 20.3 s.
        Process frozen = new Process(
                "a",
                lines(List.of(
                        "start 0 11000 11_010 NORMAL",
                        "connection LOST 20_300",
                        "end 0 11000 11_010 20_200 NORMAL ok",
                        "start 1 11000 11_010 NORMAL",
                        "end 1 11000 11_010 21_000 NORMAL ok")),
                ALIVE,
                List.of(new Interval(11_100, 20_000)));
        Judgement judgement = judge(
                frozen,
                process(
                        "b",
                        ALIVE,
                        lines(
                                List.of("start 0 20000 20_010 NORMAL", "end 0 20000 20_010 20_310 NORMAL ok"),
                                // Overlaps the thawed run from 20.5 s, after it was told: not excused.
                                List.of("start 1 20000 20_500 NORMAL", "end 1 20000 20_500 20_800 NORMAL ok"))));

        assertThat(judgement.excusedOverlaps()).singleElement().asString().startsWith("item 0");
        assertThat(judgement.crossFireOverlaps()).singleElement().asString().startsWith("item 1");
    }

    @Test
    void excusesTheReRunOfAProcessCutOffWhileRunningButNeitherItsRunPastItsInterruptDeadlineNorItsOverlap() {
        // Cut off at 11.1 s, told at 17 s: it had to stop its items by 11.1 s + 5 s / 3 + 100 ms = 12.866 s.
        Process cut = new Process(
                "a",
                lines(
                        List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 17_500 NORMAL ok"),
                        List.of("start 1 12000 12_010 NORMAL", "end 1 12000 12_010 17_500 NORMAL ok"),
                        List.of("connection LOST 17_000")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 23_000)));
        Judgement judgement =
                judge(cut, process("b", ALIVE, lines(failover(0, 11_000, 16_300), failover(1, 12_000, 16_300))));

        // Item 0's run was cut off while it ran: its re-run is excused.
        assertThat(judgement.excused()).contains(new Slot(0, at(11_000)));
        // Item 1 started while its process was already cut off: nothing excuses it.
        assertThat(judgement.excused()).doesNotContain(new Slot(1, at(12_000)));
        // Both ran on 4.6 s past the deadline, into their take-overs at 16.3 s: not excused, though a was not yet told.
        assertThat(judgement.lateStops()).hasSize(2);
        assertThat(judgement.excusedOverlaps()).isEmpty();
        assertThat(judgement.overlaps()).hasSize(2);
    }

    @Test
    void excusesAnOverlapOfACutOffRunThatBeganBeforeItsInterruptDeadlineWhenTheRunStoppedByIt() {
        // Cut off at 11.1 s while running item 0 of 11 s, interrupted at 12.8 s, before its deadline of 12.866 s.
        Process cut = new Process(
                "a",
                lines(List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 12_800 NORMAL failed")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 23_000)));
        Judgement judgement = judge(
                cut,
                process(
                        "b",
                        ALIVE,
                        lines(List.of("start 0 12000 12_700 NORMAL", "end 0 12000 12_700 13_000 NORMAL ok"))));

        assertThat(judgement.lateStops()).isEmpty();
        assertThat(judgement.excusedOverlaps()).singleElement().asString().startsWith("item 0");
        assertThat(judgement.crossFireOverlaps()).isEmpty();
    }

    @Test
    void givesAStubbornItemItsTimeAfterTheInterruptButNoMore() {
        // Cut off at 11.1 s; an item that goes on 3 s after its interrupt must end by 15.866 s.
        Rules stubborn =
                new Rules(true, Optional.empty(), new InterruptDeadline(Duration.ofSeconds(5), Duration.ofSeconds(3)));

        assertThat(judge(stubborn, cutOffRunEndingAt(15_800)).lateStops()).isEmpty();
        assertThat(judge(stubborn, cutOffRunEndingAt(15_900)).lateStops())
                .singleElement()
                .asString()
                .contains("cut off at 00:00:11.100, due to stop by 00:00:15.866");
        assertThat(judge(Rules.DEFAULT, cutOffRunEndingAt(15_800)).lateStops()).hasSize(1);
    }

    @Test
    void countsARunOfACutOffProcessStillGoingWhenTheRecordsWereReadAsLateButSetsNoDeadlineForAShortCut() {
        Process stillGoing = new Process(
                "a",
                lines(List.of("start 0 11000 11_010 NORMAL")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 23_000)));
        // Cut off for 1 s: its session was proven again before any deadline.
        Process shortCut = new Process(
                "a",
                lines(List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 18_000 NORMAL ok")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 12_100)));

        assertThat(judge(stillGoing).lateStops()).hasSize(1);
        assertThat(judge(shortCut).lateStops()).isEmpty();
    }

    /** Item 0 of 11 s run from 11.01 s to {@code end} by a process cut off from 11.1 s to 23 s. */
    private static Process cutOffRunEndingAt(long end) {
        return new Process(
                "a",
                lines(List.of("start 0 11000 11010 NORMAL", "end 0 11000 11010 " + end + " NORMAL failed")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 23_000)));
    }

    private static Judgement judge(Rules rules, Process... processes) {
        return DrillRecords.judge(List.of(processes), WINDOW, 11_150, rules);
    }

    @Test
    void excusesNoSecondRunOfAnItemFireWithFailoverOff() {
        List<Process> processes = List.of(
                process("a", 11_150, lines(run(0, 10_000), List.of("start 0 11000 11_010 NORMAL"))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), failover(0, 11_000, 16_300))));

        Judgement on = DrillRecords.judge(processes, WINDOW, 11_150, Rules.DEFAULT);
        Judgement off = DrillRecords.judge(processes, WINDOW, 11_150, new Rules(false, Optional.empty()));

        assertThat(on.excused()).containsExactly(new Slot(0, at(11_000)));
        assertThat(off.doubled()).containsOnlyKeys(new Slot(0, at(11_000)));
        assertThat(off.excused()).isEmpty();
        assertThat(off.unexcused()).isEqualTo(1);
    }

    @Test
    void excusesAReRunAfterAFaultThatCameWithinTheCoresLingerAndItsAllowanceAfterTheEndButNotLater() {
        // Item 0 of 11 s returned at 11.31 s; its process froze 150 ms later, or 300 ms later.
        Process frozenSoon = new Process("a", lines(run(0, 11_000)), ALIVE, List.of(new Interval(11_460, 11_900)));
        Process frozenLater = new Process("a", lines(run(0, 11_000)), ALIVE, List.of(new Interval(11_610, 11_900)));
        Process b = process("b", ALIVE, lines(failover(0, 11_000, 17_000)));

        assertThat(judge(frozenSoon, b).excused()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judge(frozenLater, b).excused()).isEmpty();
        assertThat(judge(frozenLater, b).unexcused()).isEqualTo(1);
    }

    @Test
    void takesTheCoresLongestLingerOfAnEndAndAStatedAllowanceAsTheTimeAnEndMayStillBeUnwritten() throws Exception {
        Field linger = GroupCommit.class.getDeclaredField("MAX_LINGER_MILLIS");
        linger.setAccessible(true);

        assertThat(DrillRecords.END_LINGER_MILLIS).isEqualTo(linger.getLong(null));
        assertThat(DrillRecords.END_RECORDED_WITHIN_MILLIS).isEqualTo(DrillRecords.END_LINGER_MILLIS + 150);
    }

    @Test
    void excusesTheReRunOfARunWhosePartitionBeganAfterItReturnedButBeforeItsEndCouldBeWritten() {
        Process cut = new Process(
                "a",
                lines(run(0, 11_000), run(1, 12_000)),
                ALIVE,
                List.of(),
                List.of(new Interval(11_400, 11_500), new Interval(15_000, 23_000)));
        Judgement judgement =
                judge(cut, process("b", ALIVE, lines(failover(0, 11_000, 16_300), failover(1, 12_000, 16_300))));

        // Item 0 returned at 11.31 s and the partition began 90 ms later, before its end was surely written.
        assertThat(judgement.excused()).contains(new Slot(0, at(11_000)));
        // Item 1 returned at 12.31 s, long before the partition of 15 s: its end was written, a re-run is a fault.
        assertThat(judgement.excused()).doesNotContain(new Slot(1, at(12_000)));
    }

    @Test
    void excusesTheReRunOfARunWhoseStartTheLeaderLetThroughJustBeforeThePartitionButNotOfOneStartedWellInIt() {
        Process cut = new Process(
                "a",
                lines(
                        List.of("start 0 11000 11_102 MISFIRE", "end 0 11000 11_102 12_600 MISFIRE ok"),
                        List.of("start 1 11000 11_900 MISFIRE", "end 1 11000 11_900 13_400 MISFIRE ok")),
                ALIVE,
                List.of(),
                List.of(new Interval(11_100, 23_000)));
        Judgement judgement =
                judge(cut, process("b", ALIVE, lines(failover(0, 11_000, 16_300), failover(1, 11_000, 16_300))));

        // Item 0's start line came 2 ms after the cut: its start was on its way through it.
        assertThat(judgement.excused()).contains(new Slot(0, at(11_000)));
        // Item 1 started 800 ms into the partition: no start can be let through so late.
        assertThat(judgement.excused()).doesNotContain(new Slot(1, at(11_000)));
    }

    @Test
    void withFailoverOffCountsASlotWhoseOnlyRunWasCutAsAbandonedNotUnfinished() {
        List<Process> processes = List.of(
                process("a", 11_150, lines(run(0, 10_000), List.of("start 0 11000 11_010 NORMAL"))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(0, 12_000), run(1, 12_000))));

        Judgement judgement = DrillRecords.judge(processes, WINDOW, 11_150, new Rules(false, Optional.empty()));

        assertThat(judgement.abandoned()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.unfinished()).isEmpty();
    }

    @Test
    void excusesAMissedSlotOnlyByItsCoalescedOrSkippedClaimInTheLedger() {
        List<Process> processes = List.of(
                process(
                        "a",
                        ALIVE,
                        lines(run(0, 10_000), List.of("start 0 - 13_600 -", "end 0 13000 13_600 13_900 MISFIRE ok"))),
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000), run(1, 13_000))));
        Map<Slot, String> ledger = Map.of(
                new Slot(0, at(11_000)), "COALESCED",
                new Slot(1, at(12_000)), "SKIPPED",
                new Slot(0, at(13_000)), "DONE");

        Judgement judgement = DrillRecords.judge(processes, WINDOW, 11_150, new Rules(true, Optional.of(ledger)));

        assertThat(judgement.coalesced()).containsExactly(new Slot(0, at(11_000)));
        assertThat(judgement.skipped()).containsExactly(new Slot(1, at(12_000)));
        // Followed by a MISFIRE run, but the ledger holds no COALESCED claim of it.
        assertThat(judgement.missed()).containsExactly(new Slot(0, at(12_000)));
    }

    @Test
    void judgesAnOperatorsFireAndLeavesOutTheSlotsAnOperatorTookOutOfTheSchedule() {
        Window window = new Window(
                at(10_000),
                at(14_000),
                Duration.ofSeconds(1),
                2,
                List.of(at(12_345)),
                // Item 1 disabled from 10.5 s to 13.5 s.
                List.of(new NotDue(10_500, 13_500, Set.of(1), 0)));
        List<Process> processes = List.of(
                process(
                        "a",
                        ALIVE,
                        lines(run(0, 10_000), run(0, 11_000), run(0, 12_000), run(0, 12_345), run(0, 13_000))),
                // Item 1 runs at 12 s although it is disabled; its run at 13 s is at the enabling's edge.
                process("b", ALIVE, lines(run(1, 10_000), run(1, 12_000), run(1, 13_000))));

        Judgement judgement = DrillRecords.judge(processes, window, 11_150, Rules.DEFAULT);

        // 4 fires and an operator's of item 0, and item 1 at 10 s only.
        assertThat(judgement.slots()).isEqualTo(6);
        assertThat(judgement.missed()).isEmpty();
        // A period after the disabling and before the enabling: 12 s (11 s had no run; 13 s is the edge).
        assertThat(judgement.undue()).extracting(Run::fireTime).containsExactly(at(12_000));
    }

    @Test
    void leavesOutTheEarlierSlotsALoweredCountSettledWithoutCallingTheirRunsUndue() {
        Window window = new Window(
                at(10_000),
                at(14_000),
                Duration.ofSeconds(1),
                2,
                List.of(),
                // The count lowered from 2 to 1 at 12.5 s: item 1 of the fires from 10.5 s on was settled by it.
                List.of(
                        new NotDue(12_500, Long.MAX_VALUE, Set.of(1), 0),
                        new NotDue(10_500, 12_500, Set.of(1), 0, true)));
        List<Process> processes = List.of(
                process("a", ALIVE, lines(run(0, 10_000), run(0, 11_000), run(0, 12_000), run(0, 13_000))),
                // Item 1 ran at 11 s; its fire at 12 s was still queued when the count was lowered.
                process("b", ALIVE, lines(run(1, 10_000), run(1, 11_000))));

        Judgement judgement = DrillRecords.judge(processes, window, 11_150, Rules.DEFAULT);

        assertThat(judgement.slots()).isEqualTo(5);
        assertThat(judgement.missed()).isEmpty();
        assertThat(judgement.undue()).isEmpty();
    }

    @Test
    void countsAMissedItemOfAnOperatorsFire() {
        Window window = new Window(at(10_000), at(12_000), Duration.ofSeconds(1), 1, List.of(at(11_500)), List.of());

        Judgement judgement = DrillRecords.judge(
                List.of(process("a", ALIVE, lines(run(0, 10_000), run(0, 11_000)))), window, 11_150, Rules.DEFAULT);

        assertThat(judgement.missed()).containsExactly(new Slot(0, at(11_500)));
    }

    @Test
    void takesAMissedSlotFollowedByAMisfireRunAsSettledWhileWaitingForTheCluster() {
        List<Run> runs = DrillRecords.runs(process(
                "a",
                ALIVE,
                lines(run(0, 10_000), List.of("start 0 - 11_600 -", "end 0 12000 11_600 13_100 MISFIRE ok"))));

        assertThat(DrillRecords.isSettled(runs, at(11_000), 1)).isTrue();
        assertThat(DrillRecords.isClean(runs, at(11_000), 1)).isFalse();
    }

    @Test
    void readsTheTimesOfAProcessWhoseClockIsAheadLessItsOffsetButNotItsFireTimes() {
        // 20 s ahead: it ran item 0 of the fire at 11 s from 11.01 s to 11.31 s, lost its session at 12 s, in true
        // time.
        Process ahead = new Process(
                "a",
                lines(List.of(
                        "ready 29_500",
                        "start 0 11000 31_010 NORMAL",
                        "end 0 11000 31_010 31_310 NORMAL ok",
                        "connection LOST 32_000")),
                ALIVE,
                List.of(),
                List.of(),
                20_000);

        assertThat(DrillRecords.runs(ahead)).singleElement().satisfies(run -> {
            assertThat(run.fireTime()).isEqualTo(at(11_000));
            assertThat(run.start()).isEqualTo(11_010);
            assertThat(run.end()).isEqualTo(11_310);
            assertThat(run.active()).containsExactly(new Interval(11_010, 11_310));
        });
        assertThat(ahead.readyAt()).contains(9_500L);
        assertThat(ahead.learnedAt(11_500, 20_000)).isEqualTo(12_000);
    }

    @Test
    void comparesTheRunsOfProcessesWhoseClocksDisagreeInTrueTime() {
        // 20 s behind: it prints 20 s less than the true time. Its run of the fire at 12 s starts at 11.2 s, true time,
        // during the other's run of the fire at 11 s (a skewed clock runs fires early or late, never twice).
        Process behind = new Process(
                "b",
                lines(List.of("start 0 12000 -8_800 NORMAL", "end 0 12000 -8_800 -8_500 NORMAL ok")),
                ALIVE,
                List.of(),
                List.of(),
                -20_000);
        Judgement judgement = judge(
                process(
                        "a",
                        ALIVE,
                        lines(List.of("start 0 11000 11_010 NORMAL", "end 0 11000 11_010 11_310 NORMAL ok"))),
                behind);

        assertThat(judgement.crossFireOverlaps()).singleElement().asString().startsWith("item 0");
        assertThat(judgement.doubled()).isEmpty();
    }

    private static Judgement judge(Process... processes) {
        // The fault ended at 11.15 s.
        return DrillRecords.judge(List.of(processes), WINDOW, 11_150);
    }

    private static Process process(String name, long endedAt, List<String> lines) {
        return new Process(name, lines, endedAt, List.of());
    }

    /** A normal run of the item for the fire, starting 10 ms after it. */
    private static List<String> run(int item, long fire) {
        long start = fire + 10;
        return List.of(
                "start " + item + " " + fire + " " + start + " NORMAL",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " NORMAL ok");
    }

    private static List<String> failover(int item, long fire, long start) {
        return List.of(
                "start " + item + " - " + start + " -",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " FAILOVER ok");
    }

    private static List<String> misfire(int item, long fire, long start) {
        return List.of(
                "start " + item + " - " + start + " -",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " MISFIRE ok");
    }

    /** Joins the lines; {@code 11_010}-style numbers in them are read without the underscores. */
    @SafeVarargs
    private static List<String> lines(List<String>... parts) {
        List<String> lines = new ArrayList<>();
        for (List<String> part : parts) {
            part.forEach(line -> lines.add(line.replace("_", "")));
        }
        return lines;
    }
}
