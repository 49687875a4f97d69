package io.shardingjob.core.drills;

import static io.shardingjob.core.drills.WorkerLines.at;
import static io.shardingjob.core.drills.WorkerLines.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.drills.CheckpointJudge.Judgement;
import io.shardingjob.core.drills.DrillRecords.Process;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint drill's judge on hand-made records: one item of the fire at 1 s (in epoch ms), its units 1 ms each,
 * a checkpoint every 50 units; process {@code a} begins it at 2 s and is killed, {@code b} continues it.
 */
class CheckpointJudgeTest {

    private static final long FIRE = 1_000;

    private static final long ALIVE = Long.MAX_VALUE;

    @Test
    void aTakeOverFromTheLastCheckpointAfterAKillResumesAndOnlyTheUnitsSinceItAreProcessedTwice() {
        Judgement judgement = judge(
                process("a", 2_100, cut(75)),
                process("b", ALIVE, lines(List.of(begin("FAILOVER", 50, 8_000)), units(50, 1_000, 8_000), done())));

        assertThat(judgement.missing()).isEmpty();
        assertThat(judgement.atOnce()).isEmpty();
        assertThat(judgement.wrongResumptions()).isEmpty();
        assertThat(judgement.aKillCutAnItem()).isTrue();
        assertThat(judgement.summary("drill"))
                .isEqualTo("drill: 1 items x 1000 units, 1025 units processed, 25 twice (25 redone after the last"
                        + " checkpoint), 0 missing, 0 at once; [item 0 cut in a after unit 74 (last checkpoint [50]),"
                        + " resumed at 50 by b (FAILOVER)]");
    }

    @Test
    void aTakeOverThatStartsAgainFromTheFirstUnitIsNotAResumption() {
        Judgement judgement = judge(
                process("a", 2_100, cut(75)),
                process("b", ALIVE, lines(List.of(begin("FAILOVER", 0, 8_000)), units(0, 1_000, 8_000), done())));

        assertThat(judgement.wrongResumptions())
                .singleElement()
                .hasToString("item 0 cut in a after unit 74 (last checkpoint [50]), resumed at 0 by b (FAILOVER)");
        assertThat(judgement.processedTwice()).isEqualTo(75);
    }

    @Test
    void aKillBetweenTheWriteOfASaveAndItsLineLeavesEitherCheckpointAsTheLast() {
        // Killed after its save of checkpoint 100 began: its "saved" line never came.
        List<String> killedSaving = new ArrayList<>(cut(100));
        killedSaving.remove("saved 0 " + FIRE + " 100 7");

        for (int from : new int[] {50, 100}) {
            Judgement judgement = judge(
                    process("a", 2_200, killedSaving),
                    process(
                            "b",
                            ALIVE,
                            lines(List.of(begin("FAILOVER", from, 8_000)), units(from, 1_000, 8_000), done())));

            assertThat(judgement.wrongResumptions()).as("resumed at %d", from).isEmpty();
        }
    }

    @Test
    void findsAUnitAndAnItemProcessedByTwoLiveProcessesAtOnceAndTheUnitsNobodyProcessed() {
        // b takes over at 2,050 ms, while a, killed at 2,100 ms, still processes its units 50 to 74.
        Judgement judgement = judge(
                process("a", 2_100, cut(75)),
                process("b", ALIVE, lines(List.of(begin("FAILOVER", 50, 2_050)), units(50, 999, 2_050), done())));

        assertThat(judgement.atOnce())
                .contains(
                        "unit 50 of item 0 in a and b",
                        "unit 74 of item 0 in a and b",
                        "item 0 run in a Interval[from=2000, to=2100] and b Interval[from=2050, to=8000]")
                .doesNotContain("unit 49 of item 0 in a and b", "unit 75 of item 0 in a and b");
        assertThat(judgement.missing()).isEqualTo(Map.of(0, List.of(999)));
    }

    private static Judgement judge(Process... processes) {
        return CheckpointJudge.judge(List.of(processes), at(FIRE), 1);
    }

    /** Process {@code a}'s run from unit 0 at 2 s, cut after {@code units} units, checkpoints saved until then. */
    private static List<String> cut(int units) {
        return lines(List.of(begin("MANUAL", 0, 2_000)), units(0, units, 2_000));
    }

    private static String begin(String source, int from, long at) {
        return "begin 0 " + FIRE + " 7 " + source + " " + from + " " + at;
    }

    /** Units {@code from} until {@code to}, 1 ms each from {@code start}, with a save after every 50th. */
    private static List<String> units(int from, int to, long start) {
        List<String> lines = new ArrayList<>();
        for (int unit = from; unit < to; unit++) {
            long begun = start + unit - from;
            lines.add("unit 0 " + FIRE + " " + unit + " " + begun + " " + (begun + 1) + " 7 w");
            if ((unit + 1) % CheckpointWorker.EVERY == 0 && unit + 1 < CheckpointWorker.UNITS) {
                lines.add("saving 0 " + FIRE + " " + (unit + 1) + " 7");
                lines.add("saved 0 " + FIRE + " " + (unit + 1) + " 7");
            }
        }
        return lines;
    }

    private static List<String> done() {
        return List.of("done 0 " + FIRE + " 7 8000");
    }

    private static Process process(String name, long endedAt, List<String> lines) {
        return new Process(name, lines, endedAt, List.of(), List.of(), 0);
    }
}
