package io.shardingjob.core.drills;

import io.shardingjob.core.drills.DrillRecords.Interval;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Run;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * When a process cut off from ZooKeeper (blackholed, or behind a follower cut off from its leader) must have stopped
 * its items: the core interrupts them a third of a session timeout after the last request that proved its session
 * through the leader, and an item stops {@code stop} after its interrupt (at once, or after what stubborn code does
 * first). The session cannot expire, nor another instance take the items over, before a whole session timeout after
 * that proof, so an item that stopped by then never runs beside its take-over, however slow the take-over is.
 *
 * <p>The judge does not see the proofs: it counts from the cut's start, the latest the last proof can be, which is
 * lenient by the age of that proof. A drill that cuts right after a proof ({@link ProofCut}) makes it exact. A frozen
 * process has no such deadline: it can do nothing until it thaws.
 *
 * @param sessionTimeout the workers' session timeout
 * @param stop how long an item goes on after its interrupt: zero for an item that stops at once, the stubborn
 *     setting's time otherwise
 */
record InterruptDeadline(Duration sessionTimeout, Duration stop) {

    /**
     * How late past its deadline an item may still end: the interrupt's way to the item's thread and the item's end
     * line, on a loaded machine. Small against what a periodic proof check can add to the third: a check every
     * eighteenth of a session timeout that asks for a proof once the last is a ninth old, and waits a ninth for its
     * answer, interrupts up to half a session timeout after the last proof (833 ms late in the drills).
     */
    static final long ALLOWANCE_MILLIS = 100;

    /** The deadline of the drills' 5 s sessions for items that stop at once. */
    static final InterruptDeadline DEFAULT = new InterruptDeadline(Duration.ofSeconds(5), Duration.ZERO);

    /** When an item running on a process cut off at {@code cutFrom} must have ended, in epoch milliseconds. */
    long stopBy(long cutFrom) {
        return cutFrom + sessionTimeout.toMillis() / 3 + stop.toMillis() + ALLOWANCE_MILLIS;
    }

    /**
     * Runs of a cut-off process that were still going at their deadline while the process was still cut off, each with
     * its cut and deadline: the core interrupted them late, or not at all. A cut that ended earlier (its session proven
     * again) sets no deadline.
     */
    List<String> lateStops(Collection<Process> processes) {
        List<String> late = new ArrayList<>();
        for (Process process : processes) {
            List<Run> runs = DrillRecords.runs(process);
            for (Interval cut : process.cutOff()) {
                long deadline = stopBy(cut.from());
                if (cut.to() <= deadline) {
                    continue;
                }
                runs.stream()
                        .filter(run -> run.start() < deadline && run.end() > deadline)
                        .forEach(run -> late.add("item " + run.item() + " of " + run.fireTime() + ": " + run
                                + ", cut off at " + time(cut.from()) + ", due to stop by " + time(deadline)));
            }
        }
        return late;
    }

    private static String time(long millis) {
        return LocalTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC).toString();
    }
}
