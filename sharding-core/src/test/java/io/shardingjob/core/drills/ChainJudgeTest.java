package io.shardingjob.core.drills;

import static io.shardingjob.core.drills.WorkerLines.at;
import static io.shardingjob.core.drills.WorkerLines.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.drills.ChainJudge.ChainJudgement;
import io.shardingjob.core.drills.DrillRecords.Interval;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Rules;
import io.shardingjob.core.drills.DrillRecords.Slot;
import io.shardingjob.core.drills.DrillRecords.Window;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The chain's judge on small hand-made tables: the drilled job and its follower, two items each, fires at 10 s, 11 s
 * and 12 s (in epoch ms), items lasting 300 ms, the follower's runs starting 500 ms after the fire.
 */
class ChainJudgeTest {

    private static final Window WINDOW = new Window(at(10_000), at(13_000), Duration.ofSeconds(1), 2);

    private static final long ALIVE = Long.MAX_VALUE;

    private static final Rules NO_LEDGER = Rules.DEFAULT;

    @Test
    void owesTheFollowerEveryItemOfEveryFireTheUpstreamCompletedAndFindsNothingWrongWhenEachRanOnce() {
        ChainJudgement chain = judge(
                false,
                NO_LEDGER,
                process("a", ALIVE, lines(both(0, 10_000), both(0, 11_000), both(0, 12_000))),
                process("b", ALIVE, lines(both(1, 10_000), both(1, 11_000), both(1, 12_000))));

        assertThat(chain.completedFires()).isEqualTo(3);
        assertThat(chain.follower().slots()).isEqualTo(6);
        assertThat(chain.summary("quiet"))
                .isEqualTo("chain quiet: upstream-fires=3 completed=3 owed=6 missed=0 unfinished=0 abandoned=0"
                        + " coalesced=0 skipped=0 doubled=0 excused=0 overlaps=0 cross-fire-overlaps=0"
                        + " excused-overlaps=0 late-stops=0 unwarranted=0 clean-again-after=0 ms");
    }

    @Test
    void countsAFollowerItemOfACompletedFireThatNeverRanAsMissedAndOneThatRanTwiceAsDoubled() {
        ChainJudgement chain = judge(
                false,
                NO_LEDGER,
                process(
                        "a",
                        ALIVE,
                        lines(both(0, 10_000), run(0, 11_000), both(0, 12_000), follower(0, 12_000, 12_900))),
                process("b", ALIVE, lines(both(1, 10_000), both(1, 11_000), both(1, 12_000))));

        assertThat(chain.follower().missed()).containsExactly(new Slot(0, at(11_000)));
        assertThat(chain.follower().doubled()).containsOnlyKeys(new Slot(0, at(12_000)));
        assertThat(chain.follower().unexcused()).isEqualTo(1);
    }

    @Test
    void countsAFollowerRunOfAFireWhoseUpstreamItemFailedAsUnwarrantedAndOwesNothingOfThatFire() {
        ChainJudgement chain = judge(
                false,
                NO_LEDGER,
                process(
                        "a",
                        ALIVE,
                        lines(
                                both(0, 10_000),
                                List.of("start 0 11000 11010 NORMAL", "end 0 11000 11010 11310 NORMAL failed"),
                                follower(0, 11_000, 11_500),
                                both(0, 12_000))),
                process("b", ALIVE, lines(both(1, 10_000), run(1, 11_000), both(1, 12_000))));

        assertThat(chain.completedFires()).isEqualTo(2);
        assertThat(chain.follower().slots()).isEqualTo(4);
        assertThat(chain.follower().missed()).isEmpty();
        assertThat(chain.follower().undue())
                .singleElement()
                .satisfies(run -> assertThat(run.fireTime()).isEqualTo(at(11_000)));
    }

    @Test
    void itemWiseOwesTheFollowersItemOnlyWhenTheUpstreamsSameItemSucceeded() {
        ChainJudgement chain = judge(
                true,
                NO_LEDGER,
                process(
                        "a",
                        ALIVE,
                        lines(
                                both(0, 10_000),
                                List.of("start 0 11000 11010 NORMAL", "end 0 11000 11010 11310 NORMAL failed"),
                                both(0, 12_000))),
                process("b", ALIVE, lines(both(1, 10_000), both(1, 11_000), both(1, 12_000))));

        assertThat(chain.completedFires()).isEqualTo(2);
        assertThat(chain.follower().slots()).isEqualTo(5);
        assertThat(chain.follower().missed()).isEmpty();
        assertThat(chain.follower().undue()).isEmpty();
    }

    @Test
    void takesTheLatestStartedUpstreamRunAsTheItemsOutcomeNotAZombiesThatEndedLater() {
        // a froze at 11.1 s while running item 0 of the fire at 11 s, b re-ran it; a's thawed run failed at 11.7 s.
        Process frozen = new Process(
                "a",
                lines(
                        both(0, 10_000),
                        List.of("start 0 11000 11010 NORMAL", "end 0 11000 11010 11700 NORMAL failed"),
                        follower(0, 12_000, 12_500)),
                ALIVE,
                List.of(new Interval(11_100, 11_600)));
        ChainJudgement chain = judge(
                false,
                NO_LEDGER,
                frozen,
                process(
                        "b",
                        ALIVE,
                        lines(
                                both(1, 10_000),
                                failover(0, 11_000, 11_300),
                                run(1, 11_000),
                                follower(0, 11_000, 11_800),
                                follower(1, 11_000, 11_800),
                                run(0, 12_000),
                                both(1, 12_000))));

        assertThat(chain.completedFires()).isEqualTo(3);
        assertThat(chain.follower().missed()).isEmpty();
        assertThat(chain.follower().undue()).isEmpty();
    }

    @Test
    void takesTheLedgersWordForAnUpstreamRunWhoseProcessFrozeBeforeItsEndCouldBeWritten() {
        // a printed item 0's end of the fire at 11 s and froze 100 ms later: did its end reach the ledger?
        Process frozenAfterItsEnd =
                new Process("a", lines(both(0, 10_000), run(0, 11_000)), ALIVE, List.of(new Interval(11_410, 11_900)));
        Process b = process("b", ALIVE, lines(both(1, 10_000), run(1, 11_000), both(1, 12_000), both(0, 12_000)));
        Rules recorded = new Rules(false, Optional.of(Map.of(new Slot(0, at(11_000)), "DONE")));
        Rules failed = new Rules(false, Optional.of(Map.of(new Slot(0, at(11_000)), "FAILED")));

        ChainJudgement done = judge(false, recorded, frozenAfterItsEnd, b);
        ChainJudgement notDone = judge(false, failed, frozenAfterItsEnd, b);

        assertThat(done.completedFires()).isEqualTo(3);
        assertThat(done.follower().missed()).containsExactly(new Slot(0, at(11_000)), new Slot(1, at(11_000)));
        assertThat(notDone.completedFires()).isEqualTo(2);
        assertThat(notDone.follower().missed()).isEmpty();
    }

    private static ChainJudgement judge(boolean itemWise, Rules upstream, Process... processes) {
        // The fault ended at 11.5 s.
        return ChainJudge.judge(List.of(processes), WINDOW, 11_500, itemWise, upstream, NO_LEDGER);
    }

    private static Process process(String name, long endedAt, List<String> lines) {
        return new Process(name, lines, endedAt, List.of());
    }

    /** The drilled job's run of the item for the fire, then the follower's. */
    private static List<String> both(int item, long fire) {
        List<String> lines = new ArrayList<>(run(item, fire));
        lines.addAll(follower(item, fire, fire + 500));
        return lines;
    }

    /** A normal run of the drilled job's item for the fire, starting 10 ms after it. */
    private static List<String> run(int item, long fire) {
        long start = fire + 10;
        return List.of(
                "start " + item + " " + fire + " " + start + " NORMAL",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " NORMAL ok");
    }

    private static List<String> failover(int item, long fire, long start) {
        return List.of(
                "start " + item + " " + fire + " " + start + " FAILOVER",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " FAILOVER ok");
    }

    /** The follower's run of the item for the upstream's fire, its lines ending with the follower's name. */
    private static List<String> follower(int item, long fire, long start) {
        return List.of(
                "start " + item + " " + fire + " " + start + " UPSTREAM follower",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " UPSTREAM ok follower");
    }
}
