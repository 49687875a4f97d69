package io.shardingjob.core.drills;

import io.shardingjob.core.drills.DrillRecords.Outcome;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Run;
import io.shardingjob.core.drills.DrillRecords.Slot;
import io.shardingjob.core.drills.DrillRecords.Window;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Whether a drill's fault bit, read from the processes' own records: a drill whose fault came too late, too early or
 * not at all passes without having tested anything, and this tells it. Pure, as {@link DrillRecords} is.
 */
final class FaultEvidence {

    private FaultEvidence() {}

    /** What shows that a fault bit. */
    enum Bite {
        /**
         * The victim printed {@code connection LOST} after the hit; with {@code failover} on, every run it had going at
         * the hit was taken over: another process ran its item-fire after the hit, or the victim after its {@code
         * connection LOST} line, under its next session (as {@code FAILOVER}, or with the source of the run it took
         * over: a make-up's is {@code MISFIRE}).
         */
        SESSION_LOST,
        /**
         * The victim had a run going when it was killed (its run cut); with {@code failover} on, every item-fire the
         * kill cut ran again on another process.
         */
        KILLED_RUNNING,
        /** The instance's next process printed {@code ready} after the hit. */
        RESTARTED,
        /** The victim printed {@code closed}: it stopped gracefully, and its runs ended. */
        STOPPED,
        /** Every item the victim ran before the hit ran on another process after it. */
        ITEMS_MOVED,
        /** Every worker process running at the hit printed {@code connection SUSPENDED} or {@code LOST} after it. */
        CONNECTIONS_BROKEN,
        /** Every worker process running at the hit printed {@code connection LOST} after it. */
        SESSIONS_LOST,
        /** The window holds item-fires after the hit that the operator took out of the schedule, and none of them ran. */
        TAKEN_OUT,
        /**
         * The victim, told to stand by at the hit, ran an item before its {@code standing-by} line; from {@link
         * #STAND_BY_SLACK_MILLIS} after that line to its {@code resumed} line it started no run of a fire due in that
         * time (but for a fire within that slack after a {@code connection RECONNECTED} under a new session, the race
         * window of {@code LeavingMark}: a leader that sees the registration before the mark may give items under one
         * assignment, taken away by the next); and after its {@code resumed} line it ran a fire due after it: its items
         * came back.
         */
        STOOD_BY
    }

    /**
     * How long after its {@code standing-by} line a worker may still start items of the fires due: one reshard's slack.
     * The line comes once the leaving mark is written; the leader then sees it in its cache, raises the reshard flag
     * (from which on the fires of every instance wait for the new assignment) and writes the assignment: a watch event
     * and two writes, a few milliseconds on an idle machine. The drills allow a request in flight 500 ms on a loaded
     * one ({@code START_IN_FLIGHT_MILLIS}); a whole period is twice that, and excuses at most one fire.
     */
    static final long STAND_BY_SLACK_MILLIS = 1_000;

    /**
     * One hit of a drill's fault.
     *
     * @param victim the process hit ({@code w1#0}); empty for a fault of ZooKeeper or an operator's change
     * @param at when, in epoch milliseconds
     */
    record Hit(Bite bite, String victim, long at) {

        static Hit of(Bite bite, DrillCluster.Worker victim, long at) {
            return new Hit(bite, victim.record().name(), at);
        }

        static Hit ofEveryone(Bite bite, long at) {
            return new Hit(bite, "", at);
        }
    }

    /** Empty when the records show the hit bit; otherwise what they lack. */
    static Optional<String> missing(Hit hit, Collection<Process> processes, Window window, boolean failover) {
        List<Run> runs = DrillRecords.runs(processes);
        Process victim = processes.stream()
                .filter(process -> process.name().equals(hit.victim()))
                .findFirst()
                .orElse(null);
        if (victim == null && !hit.victim().isEmpty()) {
            return Optional.of("no records of " + hit.victim());
        }
        String when = " after " + Instant.ofEpochMilli(hit.at());
        return Optional.ofNullable(
                switch (hit.bite()) {
                    case SESSION_LOST -> sessionLost(victim, runs, hit.at(), failover);
                    case KILLED_RUNNING -> killedRunning(victim, runs, failover);
                    case RESTARTED ->
                        restarted(victim, processes, hit.at())
                                ? null
                                : "no next process of " + victim.name() + " printed 'ready'" + when;
                    case STOPPED ->
                        victim.lines().stream().anyMatch(line -> line.startsWith("closed "))
                                ? null
                                : victim.name() + " printed no 'closed'";
                    case ITEMS_MOVED -> notMoved(victim, runs, hit.at());
                    case CONNECTIONS_BROKEN -> notTold(processes, hit.at(), "SUSPENDED", "LOST");
                    case SESSIONS_LOST -> notTold(processes, hit.at(), "LOST");
                    case TAKEN_OUT -> notTakenOut(window, runs, hit.at());
                    case STOOD_BY -> notStoodBy(victim, runs, hit.at());
                });
    }

    /** When the process printed {@code <word> <ms>} first from {@code from} on, in the drill's time. */
    static Optional<Long> printed(Process process, String word, long from) {
        return process.lines().stream()
                .filter(line -> line.startsWith(word + " "))
                .map(line -> process.trueTime(line.substring(word.length() + 1)))
                .filter(at -> at >= from)
                .findFirst();
    }

    private static String notStoodBy(Process victim, List<Run> runs, long at) {
        Optional<Long> standing = printed(victim, "standing-by", at);
        if (standing.isEmpty()) {
            return victim.name() + " printed no 'standing-by' after " + Instant.ofEpochMilli(at);
        }
        Optional<Long> resumed = printed(victim, "resumed", standing.get());
        if (resumed.isEmpty()) {
            return victim.name() + " printed no 'resumed' after its 'standing-by'";
        }
        List<Run> own = runs.stream()
                .filter(run -> run.process().equals(victim.name()) && run.fireTime() != null)
                .toList();
        if (own.stream().noneMatch(run -> run.start() < standing.get())) {
            return victim.name() + " ran no item before it stood by: it had none to hand over";
        }
        // A new session registers again: from its RECONNECTED line, one more slack for the race LeavingMark documents.
        Optional<Long> registeredAgain = victim.lostSince(standing.get())
                .flatMap(lost -> printed(victim, "connection RECONNECTED", lost))
                .filter(again -> again < resumed.get());
        List<Run> whileStandingBy = own.stream()
                .filter(run -> run.start() < resumed.get()
                        && run.fireTime().toEpochMilli() >= standing.get() + STAND_BY_SLACK_MILLIS)
                .filter(run -> registeredAgain
                        .map(again -> !withinSlackOf(run.fireTime().toEpochMilli(), again))
                        .orElse(true))
                .toList();
        if (!whileStandingBy.isEmpty()) {
            return victim.name() + " started runs of fires due while it stood by: " + whileStandingBy;
        }
        return own.stream()
                        .anyMatch(run ->
                                run.start() > resumed.get() && run.fireTime().toEpochMilli() > resumed.get())
                ? null
                : victim.name() + " ran no fire due after its 'resumed': its items did not come back";
    }

    /**
     * The fires the victim, told to stand by at {@code at}, reported overrun ({@code overran} lines) though they came
     * due from a slack after its {@code standing-by} line to its {@code resumed} line: it owned none of their items, so
     * none of them can have overrun there. Each as its line.
     */
    static List<String> overranWhileStandingBy(Process victim, long at) {
        Optional<Long> standing = printed(victim, "standing-by", at);
        Optional<Long> resumed = standing.flatMap(from -> printed(victim, "resumed", from));
        if (resumed.isEmpty()) {
            return List.of();
        }
        return victim.lines().stream()
                .filter(line -> line.startsWith("overran "))
                .filter(line -> {
                    long fire = Long.parseLong(line.split(" ")[1]);
                    return fire >= standing.get() + STAND_BY_SLACK_MILLIS && fire <= resumed.get();
                })
                .toList();
    }

    private static boolean withinSlackOf(long fire, long from) {
        return fire >= from && fire < from + STAND_BY_SLACK_MILLIS;
    }

    /**
     * For people reading a stand-by cell: when the victim stood by and resumed, how long after its standing-by line the
     * last fire it started came, and how long after its resume the first fire it ran.
     */
    static String standingBy(Process victim, Collection<Process> processes, long at) {
        Optional<Long> standing = printed(victim, "standing-by", at);
        Optional<Long> resumed = standing.flatMap(from -> printed(victim, "resumed", from));
        if (resumed.isEmpty()) {
            return victim.name() + " did not stand by and resume";
        }
        List<Run> own = DrillRecords.runs(processes).stream()
                .filter(run -> run.process().equals(victim.name()) && run.fireTime() != null)
                .toList();
        String lastFire = own.stream()
                .filter(run -> run.start() > standing.get() && run.start() < resumed.get())
                .mapToLong(run -> run.fireTime().toEpochMilli() - standing.get())
                .max()
                .stream()
                .mapToObj(late -> late + " ms after it")
                .findFirst()
                .orElse("none after it");
        String firstBack = own.stream()
                .filter(run -> run.start() > resumed.get())
                .mapToLong(run -> run.start() - resumed.get())
                .min()
                .stream()
                .mapToObj(after -> after + " ms after it")
                .findFirst()
                .orElse("none");
        return victim.name() + " stood by from " + standing.get() + " to " + resumed.get() + "; the last fire it"
                + " started came " + lastFire + "; its first run after resuming began " + firstBack;
    }

    private static String sessionLost(Process victim, List<Run> runs, long at, boolean failover) {
        Optional<Long> lost = victim.lostSince(at);
        if (lost.isEmpty()) {
            return victim.name() + " printed no 'connection LOST' after " + Instant.ofEpochMilli(at);
        }
        return failover ? notTakenOver(victim, runs, at, lost.get()) : null;
    }

    /**
     * The runs the victim had going at the hit that nobody ran again under another session: another process after the
     * hit, or the victim itself once it learned its session was lost ({@code lost}). The victim takes its own old
     * session's claims over when it is back before their item's new owner got to them (busy with a later fire of the
     * item, say, until the victim came back and was given the item again).
     */
    private static String notTakenOver(Process victim, List<Run> runs, long at, long lost) {
        List<Slot> left = runs.stream()
                .filter(run -> run.process().equals(victim.name()) && run.start() <= at && run.end() > at)
                .map(FaultEvidence::slot)
                .filter(slot -> runs.stream()
                        .noneMatch(other -> slot.equals(slot(other))
                                && (other.process().equals(victim.name()) ? other.start() > lost : other.start() > at)))
                .toList();
        return left.isEmpty()
                ? null
                : "the runs " + victim.name() + " had going at the hit were not taken over (run elsewhere after it): "
                        + left;
    }

    private static String killedRunning(Process victim, List<Run> runs, boolean failover) {
        List<Run> cut = runs.stream()
                .filter(run -> run.process().equals(victim.name()) && run.outcome() == Outcome.CUT)
                .toList();
        if (cut.isEmpty()) {
            return victim.name() + " had no run going when it was killed";
        }
        List<Slot> notAgain = cut.stream()
                .filter(run -> run.fireTime() != null)
                .map(FaultEvidence::slot)
                .filter(slot -> runs.stream()
                        .noneMatch(other -> !other.process().equals(victim.name()) && slot.equals(slot(other))))
                .toList();
        return failover && !notAgain.isEmpty() ? "the item-fires the kill cut did not run again: " + notAgain : null;
    }

    private static boolean restarted(Process victim, Collection<Process> processes, long at) {
        String instance = victim.name().substring(0, victim.name().indexOf('#') + 1);
        return processes.stream()
                .filter(process ->
                        process.name().startsWith(instance) && !process.name().equals(victim.name()))
                .anyMatch(process -> process.readyAt().map(ready -> ready > at).orElse(false));
    }

    private static String notMoved(Process victim, List<Run> runs, long at) {
        List<Integer> stayed = runs.stream()
                .filter(run -> run.process().equals(victim.name()) && run.start() < at)
                .map(Run::item)
                .distinct()
                .filter(item -> runs.stream()
                        .noneMatch(other ->
                                !other.process().equals(victim.name()) && other.item() == item && other.start() > at))
                .toList();
        return stayed.isEmpty()
                ? null
                : "items " + victim.name() + " ran before the hit did not run elsewhere after it: " + stayed;
    }

    private static String notTold(Collection<Process> processes, long at, String... states) {
        List<String> untold = new ArrayList<>();
        for (Process process : processes) {
            if (process.endedAt() <= at
                    || process.readyAt().map(ready -> ready > at).orElse(true)) {
                continue;
            }
            boolean told = process.lines().stream()
                    .anyMatch(line -> List.of(states).stream()
                            .anyMatch(state -> line.startsWith("connection " + state + " ")
                                    && process.trueTime(line.substring(("connection " + state + " ").length())) >= at));
            if (!told) {
                untold.add(process.name());
            }
        }
        return untold.isEmpty()
                ? null
                : "no 'connection " + String.join("' or '", states) + "' after the hit on " + untold;
    }

    private static String notTakenOut(Window window, List<Run> runs, long at) {
        List<Slot> takenOut = window.fires().stream()
                .filter(fire -> fire.toEpochMilli() >= at)
                .flatMap(fire -> IntStream.range(0, window.items()).mapToObj(item -> new Slot(item, fire)))
                .filter(window::isNeverDue)
                .toList();
        if (takenOut.isEmpty()) {
            return "the window holds no item-fire the change took out of the schedule";
        }
        return runs.stream().anyMatch(run -> run.fireTime() != null && takenOut.contains(slot(run)))
                ? "item-fires the change took out of the schedule ran anyway"
                : null;
    }

    private static Slot slot(Run run) {
        return new Slot(run.item(), run.fireTime());
    }
}
