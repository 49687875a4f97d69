package io.shardingjob.core.drills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.drills.CheckpointJudge.Judgement;
import io.shardingjob.core.drills.CheckpointJudge.Resumption;
import io.shardingjob.core.drills.DrillCluster.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The checkpoint drill of issue 42, with real processes: three {@link CheckpointWorker} processes of a job of three
 * items, each item {@value CheckpointWorker#UNITS} units of {@value #UNIT_MILLIS} ms with a checkpoint every {@value
 * CheckpointWorker#EVERY}, 5 s sessions, against a ZooKeeper server process. An operator triggers one fire; a worker is
 * killed ({@code kill -9}) in the middle of its item, and its item is continued by another process from the last
 * checkpoint it saved: a survivor's take-over with {@code failover} on, an operator's re-run of the failed item
 * ({@link JobCoordinator#rerunFailed}) with it off. {@link CheckpointJudge} judges the workers' printed lines; the
 * counts are printed and appended to {@code target/e2e/drills/results.txt}.
 */
class CheckpointDrillTest {

    private static final int WORKERS = 3;

    private static final int ITEMS = 3;

    private static final long UNIT_MILLIS = 5;

    private static final Duration SESSION = Duration.ofSeconds(5);

    /** No kill before this unit: the item is well under way, with checkpoints saved, and far from its end. */
    private static final int KILL_FROM = 250;

    /** Where the kill lands in the victim's item, and what continues the item it cut. */
    enum Cell {
        /** Failover on, the kill right after a save: the take-over redoes (almost) nothing. */
        FAILOVER_KILL_AFTER_A_CHECKPOINT(true, 0),
        /** Failover on, the kill half-way between two saves: the take-over redoes the units since the last. */
        FAILOVER_KILL_BETWEEN_CHECKPOINTS(true, CheckpointWorker.EVERY / 2),
        /** Failover off: the cut run is recorded failed, and an operator's re-run resumes it. */
        RERUN_KILL_BETWEEN_CHECKPOINTS(false, CheckpointWorker.EVERY / 2);

        private final boolean failover;

        /** How many units past a checkpoint the kill comes. */
        private final int pastACheckpoint;

        Cell(boolean failover, int pastACheckpoint) {
            this.failover = failover;
            this.pastACheckpoint = pastACheckpoint;
        }

        String drillName() {
            return "checkpoint-" + name().toLowerCase().replace('_', '-');
        }
    }

    @Tag("drill")
    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"FAILOVER_KILL_BETWEEN_CHECKPOINTS", "RERUN_KILL_BETWEEN_CHECKPOINTS"})
    void aCutItemResumesFromItsLastCheckpointInEveryBuild(Cell cell) {
        drill(cell);
    }

    @Tag("drill-matrix")
    @ParameterizedTest(name = "{0}")
    @EnumSource(names = "FAILOVER_KILL_AFTER_A_CHECKPOINT")
    void aCutItemResumesFromItsLastCheckpointAcrossTheMatrix(Cell cell) {
        drill(cell);
    }

    private void drill(Cell cell) {
        long begun = System.nanoTime();
        try (DrillCluster cluster =
                new DrillCluster(cell.drillName(), SESSION, ITEMS, Duration.ofMillis(UNIT_MILLIS))) {
            cluster.workerMain(CheckpointWorker.class).workerProperties(List.of("-Ddrill.failover=" + cell.failover));
            cluster.standaloneZooKeeper();
            List<Worker> workers = cluster.startWorkers(WORKERS);
            JobCoordinator operator = cluster.operator();
            await("every worker registered")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> operator.liveInstances()
                            .containsAll(IntStream.range(0, WORKERS)
                                    .mapToObj(i -> "w" + i)
                                    .toList()));
            Instant fire = operator.trigger(null);
            Worker victim = workers.get(1);
            String killedAt = awaitKillPoint(victim, fire, cell);
            cluster.kill(victim);
            System.out.println(cell.drillName() + ": " + victim + " killed after " + killedAt);
            if (!cell.failover) {
                rerunTheFailedItems(cluster, operator, fire, victim);
            }
            await("every item of the fire processed to its last unit")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> CheckpointJudge.judge(cluster.records(), fire, ITEMS)
                            .missing()
                            .isEmpty());
            Judgement judgement = CheckpointJudge.judge(cluster.finish(), fire, ITEMS);
            String summary = judgement.summary(cell.drillName()) + " (drill took "
                    + Duration.ofNanos(System.nanoTime() - begun).toSeconds() + " s)";
            System.out.println(summary);
            DrillCluster.appendResult(summary);
            assertTheResumption(cell, judgement, summary);
        }
    }

    /**
     * Waits until the victim's last printed line is the point of its item the cell kills at: a saved checkpoint, or a
     * unit that many past one, from {@link #KILL_FROM} on. Returns that line.
     */
    private static String awaitKillPoint(Worker victim, Instant fire, Cell cell) {
        return DrillCluster.awaitValue(
                victim + " at its kill point", Duration.ofSeconds(60), Duration.ofMillis(1), () -> {
                    List<String> lines = victim.record().lines();
                    if (lines.isEmpty()) {
                        return Optional.empty();
                    }
                    String last = lines.get(lines.size() - 1);
                    String[] fields = last.split(" ");
                    if (fields.length < 4 || !fields[2].equals(Long.toString(fire.toEpochMilli()))) {
                        return Optional.empty();
                    }
                    boolean there = cell.pastACheckpoint == 0
                            ? fields[0].equals("saved") && Integer.parseInt(fields[3]) >= KILL_FROM
                            : fields[0].equals("unit")
                                    && Integer.parseInt(fields[3]) >= KILL_FROM
                                    && (Integer.parseInt(fields[3]) + 1) % CheckpointWorker.EVERY
                                            == cell.pastACheckpoint;
                    return there ? Optional.of(last) : Optional.empty();
                });
    }

    /**
     * Failover off: the new owner of the victim's items records their cut runs failed; an operator re-runs them, and
     * their owner resumes each from its last checkpoint.
     */
    private static void rerunTheFailedItems(
            DrillCluster cluster, JobCoordinator operator, Instant fire, Worker victim) {
        List<Integer> cut = CheckpointJudge.judge(List.of(victim.record()), fire, ITEMS).resumptions().stream()
                .map(resumption -> resumption.cut().item())
                .toList();
        await("the cut runs recorded failed")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> cut.stream()
                        .allMatch(item -> "FAILED".equals(cluster.ledger().get(new DrillRecords.Slot(item, fire)))));
        assertThat(operator.rerunFailed(fire)).as("the items re-run").isEqualTo(cut);
    }

    private static void assertTheResumption(Cell cell, Judgement judgement, String summary) {
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(judgement.aKillCutAnItem())
                    .as("%s: the kill bit: the victim printed units of an item it did not finish", summary)
                    .isTrue();
            softly.assertThat(judgement.missing())
                    .as("%s: units never processed", summary)
                    .isEmpty();
            softly.assertThat(judgement.atOnce())
                    .as("%s: units or items processed by two live processes at once", summary)
                    .isEmpty();
            softly.assertThat(judgement.wrongResumptions())
                    .as("%s: cut runs not continued from their last checkpoint", summary)
                    .isEmpty();
            softly.assertThat(judgement.resumptions())
                    .as("%s: continued by a %s", summary, cell.failover ? "take-over" : "re-run")
                    .allSatisfy(resumption -> softly.assertThat(resumption.next())
                            .hasValueSatisfying(next ->
                                    softly.assertThat(next.source()).isEqualTo(cell.failover ? "FAILOVER" : "RETRY")));
            softly.assertThat(judgement.resumptions().stream().mapToInt(Resumption::redone))
                    .as("%s: units redone after the last checkpoint", summary)
                    .allMatch(redone -> redone < CheckpointWorker.EVERY);
        });
    }
}
