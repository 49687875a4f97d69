package io.shardingjob.core.drills;

import io.shardingjob.core.drills.DrillRecords.Judgement;
import io.shardingjob.core.drills.DrillRecords.Outcome;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Rules;
import io.shardingjob.core.drills.DrillRecords.Run;
import io.shardingjob.core.drills.DrillRecords.Slot;
import io.shardingjob.core.drills.DrillRecords.Window;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The promise of a chain, judged from the records of a chain drill: the follower ({@link DrillWorker#FOLLOWER}, on the
 * upstream's success) runs every item once for every fire of the drilled job that completed with success, at that
 * fire's time, and nothing for a fire that did not. Item by item, its item i runs once for every fire whose item i
 * succeeded. Pure, as {@link DrillRecords} is, whose judge it reuses on the follower's records with the slots the
 * upstream owes it: missed, doubled (and excused), overlaps as for any job, and runs of slots not owed as undue.
 *
 * <p>Which upstream item-fires succeeded, the records say: an item's last run (by start; a zombie's run that began
 * before its take-over is not the last) ended {@code ok}. When a fault hit that run's process before its end could be
 * written ({@link Run#cutAt}), only the ledger knows whether its end counted, and the ledger's {@code DONE} decides.
 */
final class ChainJudge {

    private ChainJudge() {}

    /**
     * A chain drill's judgement of the follower.
     *
     * @param upstreamFires the window's fires of the drilled job
     * @param completedFires those whose every item succeeded
     * @param follower the follower's records judged over the slots owed, its {@code undue} the runs not owed
     */
    record ChainJudgement(int upstreamFires, int completedFires, Judgement follower) {

        String summary(String drill) {
            return "chain " + drill + ": upstream-fires=" + upstreamFires + " completed=" + completedFires + " owed="
                    + follower.slots() + " missed=" + follower.missed().size() + " unfinished="
                    + follower.unfinished().size() + " abandoned="
                    + follower.abandoned().size() + " coalesced="
                    + follower.coalesced().size() + " skipped="
                    + follower.skipped().size() + " doubled="
                    + follower.doubled().size() + " excused="
                    + follower.excused().size() + " overlaps="
                    + follower.overlaps().size() + " cross-fire-overlaps="
                    + follower.crossFireOverlaps().size()
                    + " excused-overlaps=" + follower.excusedOverlaps().size() + " late-stops="
                    + follower.lateStops().size() + " unwarranted="
                    + follower.undue().size() + " clean-again-after="
                    + follower.cleanAgainAfter()
                            .map(after -> after.toMillis() + " ms")
                            .orElse("never");
        }
    }

    /**
     * Judges the follower over the window's fires.
     *
     * @param upstream the drilled job's rules, its ledger among them
     * @param follower the follower's rules, its ledger among them (its coalesced slots)
     */
    static ChainJudgement judge(
            Collection<Process> processes,
            Window window,
            long faultEnd,
            boolean itemWise,
            Rules upstream,
            Rules follower) {
        List<Run> upstreamRuns = DrillRecords.runs(
                processes.stream().map(process -> process.only(DrillWorker.JOB)).toList());
        Set<Slot> succeeded = succeeded(upstreamRuns, window, upstream.ledger().orElse(Map.of()));
        List<Instant> fires = window.fires();
        Set<Instant> completed = fires.stream()
                .filter(fire ->
                        IntStream.range(0, window.items()).allMatch(item -> succeeded.contains(new Slot(item, fire))))
                .collect(Collectors.toSet());
        Set<Slot> owed = itemWise
                ? succeeded
                : completed.stream()
                        .flatMap(fire -> IntStream.range(0, window.items()).mapToObj(item -> new Slot(item, fire)))
                        .collect(Collectors.toSet());
        List<Process> followerRecords = processes.stream()
                .map(process -> process.only(DrillWorker.FOLLOWER))
                .toList();
        Judgement judgement = DrillRecords.judge(followerRecords, window.owing(owed), faultEnd, follower);
        return new ChainJudgement(fires.size(), completed.size(), judgement);
    }

    /**
     * The window's upstream item-fires that succeeded: the last run ok, or, when a fault may have kept its end from the
     * ledger, recorded {@code DONE} there (an empty ledger: not read, and the record's word stands).
     */
    static Set<Slot> succeeded(List<Run> upstreamRuns, Window window, Map<Slot, String> ledger) {
        Map<Slot, List<Run>> bySlot = upstreamRuns.stream()
                .filter(run -> run.fireTime() != null)
                .collect(Collectors.groupingBy(run -> new Slot(run.item(), run.fireTime())));
        Set<Slot> succeeded = new HashSet<>();
        for (Instant fire : window.fires()) {
            for (int item = 0; item < window.items(); item++) {
                Slot slot = new Slot(item, fire);
                Run last = bySlot.getOrDefault(slot, List.of()).stream()
                        .max(Comparator.comparingLong(Run::start))
                        .orElse(null);
                if (last == null) {
                    continue;
                }
                boolean faultBeforeItsEndWasWritten = last.cutAt() != Long.MAX_VALUE;
                boolean ok = faultBeforeItsEndWasWritten && !ledger.isEmpty()
                        ? "DONE".equals(ledger.get(slot))
                        : last.outcome() == Outcome.OK;
                if (ok) {
                    succeeded.add(slot);
                }
            }
        }
        return succeeded;
    }
}
