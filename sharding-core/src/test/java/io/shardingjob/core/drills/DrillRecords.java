package io.shardingjob.core.drills;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What a drill's worker processes printed ({@link DrillWorker}'s lines) and the judgement of issue 12's promise over
 * it: every item of every fire runs, and never twice at the same time. Pure: it reads lines and the fault times the
 * drill recorded, never a process or the clock.
 *
 * <p>A run starts with its start line and ends with its end line. A run whose process was killed (or exited) before
 * its end line lasts until then; a run of a frozen process lasts across the freeze, but does not really run during
 * it, so the freeze is cut out of it when runs are compared for overlaps. A run's fire time and source come from its
 * end line, or from its start line when it has none; a run with neither is <em>unattributed</em>. Every time is the
 * drill's: a process whose wall clock is skewed has its printed times corrected by its {@linkplain
 * Process#clockOffsetMillis offset}, never its fire times.
 */
final class DrillRecords {

    static final String MISFIRE = "MISFIRE";

    /**
     * The longest the core lets an end linger for the ends of other items before it sends it: {@code
     * GroupCommit.MAX_LINGER_MILLIS} (package-private there; {@code DrillRecordsTest} holds the two equal).
     */
    static final long END_LINGER_MILLIS = 50;

    /**
     * How long after an item returned its end may still be unwritten: the core's linger, then 150 ms for a loaded
     * machine (the commit in flight that the end waits behind, the request's way out; three lingers, where an idle
     * machine takes a few milliseconds). A fault this soon after an end line may have kept the end from the ledger, so
     * the run counts as cut there: the item's owner re-runs it with failover on. A re-run after a fault later than this
     * is of a run whose end was recorded: nothing excuses it.
     */
    static final long END_RECORDED_WITHIN_MILLIS = END_LINGER_MILLIS + 150;

    /**
     * How long after a partition began a run may still start that the leader let start before it: what was already
     * past the cut (a commit on its way to a follower, an answer on its way to the worker) still arrives, and the
     * worker's start line follows it. A run that starts later than this in a partition excuses nothing.
     */
    static final long START_IN_FLIGHT_MILLIS = 500;

    /** How many fields each run line has before the job name a follower's line ends with. */
    private static final Map<String, Integer> RUN_LINE_FIELDS = Map.of("start", 5, "end", 7, "not-started", 4);

    private DrillRecords() {}

    /** From {@code from} (inclusive) to {@code to} (exclusive), in epoch milliseconds. */
    record Interval(long from, long to) {

        boolean overlaps(Interval other) {
            return from < other.to && other.from < to;
        }
    }

    /**
     * One process as the drill saw it.
     *
     * @param name e.g. {@code w2#1}, the second process of instance {@code w2}
     * @param lines what it printed
     * @param endedAt when it was killed or exited, {@link Long#MAX_VALUE} if it still ran when its lines were read
     * @param freezes from each {@code SIGSTOP} to its {@code SIGCONT}
     * @param cutOff from each blackholing of its ZooKeeper traffic (it runs on, unheard) to its end
     * @param clockOffsetMillis how far its wall clock is ahead of the drill's (negative: behind), under libfaketime: the
     *     times it printed (ready, starts, ends, connection states) are read less this, in the drill's time, which the
     *     fault intervals and {@code endedAt} are in. A fire time is a fire's identity, the cron's instant as the process
     *     computed it, and is read as printed
     */
    record Process(
            String name,
            List<String> lines,
            long endedAt,
            List<Interval> freezes,
            List<Interval> cutOff,
            long clockOffsetMillis) {

        Process(String name, List<String> lines, long endedAt, List<Interval> freezes, List<Interval> cutOff) {
            this(name, lines, endedAt, freezes, cutOff, 0);
        }

        Process(String name, List<String> lines, long endedAt, List<Interval> freezes) {
            this(name, lines, endedAt, freezes, List.of(), 0);
        }

        /** A time the process printed, in the drill's time. */
        long trueTime(String printed) {
            return Long.parseLong(printed.trim()) - clockOffsetMillis;
        }

        /**
         * The process as one job's records: its run lines ({@code start}, {@code end}, {@code not-started}) without
         * their job name, and every other line. A run line without a name is the drilled job's ({@link
         * DrillWorker#JOB}); a follower's ends with the follower's name.
         */
        Process only(String job) {
            List<String> own = new ArrayList<>();
            for (String line : lines) {
                String[] fields = line.trim().split(" ");
                Integer unnamed = RUN_LINE_FIELDS.get(fields[0]);
                if (unnamed == null) {
                    own.add(line);
                } else if (fields.length == unnamed && job.equals(DrillWorker.JOB)) {
                    own.add(line);
                } else if (fields.length == unnamed + 1 && fields[unnamed].equals(job)) {
                    own.add(String.join(" ", Arrays.copyOf(fields, unnamed)));
                }
            }
            return new Process(name, own, endedAt, freezes, cutOff, clockOffsetMillis);
        }

        /** When it printed {@code ready}, in the drill's time. */
        Optional<Long> readyAt() {
            return lines.stream()
                    .filter(line -> line.startsWith("ready "))
                    .map(line -> trueTime(line.substring("ready ".length())))
                    .findFirst();
        }

        /**
         * When the process learned it lost its session after a fault that began at {@code faultFrom}: its first {@code
         * connection LOST} line from then on, else the fault's end {@code faultTo} (it kept its session).
         */
        long learnedAt(long faultFrom, long faultTo) {
            return lostSince(faultFrom).orElse(faultTo);
        }

        /** Its first {@code connection LOST} line from {@code from} on: when it learned its session was gone. */
        Optional<Long> lostSince(long from) {
            return lines.stream()
                    .filter(line -> line.startsWith("connection LOST "))
                    .map(line -> trueTime(line.substring("connection LOST ".length())))
                    .filter(at -> at >= from)
                    .min(Comparator.naturalOrder());
        }
    }

    /**
     * Slots an operator took out of the schedule: fires in {@code [from, to)} of {@code items} (every item when empty),
     * except those on a whole multiple of {@code keepEvery} seconds (a cron of every {@code keepEvery} seconds; 0 keeps
     * none). Their runs are not required; a run of one of them a period after {@code from} and a period before {@code
     * to} is <em>undue</em>, since no schedule, cache or edge explains it, unless {@code runsAllowed}: slots that were
     * due when they fired and that a later change settled (the items beyond a lowered count), whose runs are neither
     * required nor undue.
     */
    record NotDue(long from, long to, Set<Integer> items, int keepEvery, boolean runsAllowed) {

        NotDue(long from, long to, Set<Integer> items, int keepEvery) {
            this(from, to, items, keepEvery, false);
        }

        boolean covers(Slot slot) {
            return covers(slot, from, to);
        }

        boolean neverDue(Slot slot, Duration period) {
            return !runsAllowed && covers(slot, from + period.toMillis(), to - period.toMillis());
        }

        private boolean covers(Slot slot, long since, long until) {
            long fire = slot.fireTime().toEpochMilli();
            return fire >= since
                    && fire < until
                    && (items.isEmpty() || items.contains(slot.item()))
                    && (keepEvery <= 0 || fire % (keepEvery * 1000L) != 0);
        }
    }

    /**
     * The fires judged: every {@code period} from {@code from} (inclusive) to {@code to} (exclusive), and each operator's
     * fire of {@code manualFires}, each of {@code items} items less the slots {@code notDue} takes out and those {@code
     * owed} does not hold. A run of a slot not owed is <em>undue</em>: a follower's run of a fire its upstream did not
     * complete.
     */
    record Window(
            Instant from,
            Instant to,
            Duration period,
            int items,
            List<Instant> manualFires,
            List<NotDue> notDue,
            Predicate<Slot> owed) {

        Window(Instant from, Instant to, Duration period, int items, List<Instant> manualFires, List<NotDue> notDue) {
            this(from, to, period, items, manualFires, notDue, slot -> true);
        }

        Window(Instant from, Instant to, Duration period, int items) {
            this(from, to, period, items, List.of(), List.of());
        }

        /** The same fires, of which only the slots in {@code owed} are due, as a follower's are. */
        Window owing(Set<Slot> owed) {
            Set<Slot> copy = Set.copyOf(owed);
            return new Window(from, to, period, items, manualFires, notDue, copy::contains);
        }

        List<Instant> fires() {
            List<Instant> fires = new ArrayList<>();
            for (Instant fire = from; fire.isBefore(to); fire = fire.plus(period)) {
                fires.add(fire);
            }
            manualFires.stream()
                    .filter(fire -> !fire.isBefore(from) && fire.isBefore(to))
                    .forEach(fires::add);
            fires.sort(Comparator.naturalOrder());
            return fires;
        }

        boolean isDue(Slot slot) {
            return owed.test(slot) && notDue.stream().noneMatch(out -> out.covers(slot));
        }

        boolean isNeverDue(Slot slot) {
            return !owed.test(slot) || notDue.stream().anyMatch(out -> out.neverDue(slot, period));
        }
    }

    /**
     * What the drill's configuration makes of a slot beyond the window.
     *
     * @param failover the job's {@code failover}: off, a run cut by a fault is not run again (the slot is
     *     <em>abandoned</em>)
     * @param ledger the state of every claim the fire ledger held after the drill, read from ZooKeeper by the test
     *     process before the workers stopped; a missed slot is excused only by its {@code COALESCED} (or {@code SKIPPED})
     *     claim. Empty: not read, and a missed slot followed by a {@code MISFIRE} run of its item is taken as coalesced
     *     (the judge's table tests)
     * @param deadline by when a cut-off process must have stopped its items, which follows from the session timeout
     *     and how long an interrupted item goes on
     */
    record Rules(boolean failover, Optional<Map<Slot, String>> ledger, InterruptDeadline deadline) {

        static final Rules DEFAULT = new Rules(true, Optional.empty());

        Rules(boolean failover, Optional<Map<Slot, String>> ledger) {
            this(failover, ledger, InterruptDeadline.DEFAULT);
        }
    }

    /** One item of one fire. */
    record Slot(int item, Instant fireTime) {

        @Override
        public String toString() {
            return "item " + item + " of " + fireTime;
        }
    }

    /** How a run ended: its end line said ok or failed, its process ended first, or it still runs. */
    enum Outcome {
        OK,
        FAILED,
        CUT,
        RUNNING
    }

    /**
     * One run of one item.
     *
     * @param fireTime the fire it ran for, {@code null} when unattributed
     * @param source its source ({@code NORMAL}, {@code FAILOVER}, {@code MISFIRE}, ...), {@code -} when unknown
     * @param end its end line's time, or its process's end when it was cut
     * @param cutAt when a fault first hit it while it ran: its process frozen or ended; {@link Long#MAX_VALUE} if none
     * @param active when it really ran: from start to end, less its process's freezes
     */
    record Run(
            String process,
            int item,
            Instant fireTime,
            String source,
            long start,
            long end,
            Outcome outcome,
            long cutAt,
            List<Interval> active) {

        boolean overlaps(Run other) {
            return active.stream().anyMatch(mine -> other.active.stream().anyMatch(mine::overlaps));
        }

        /** The first moment both runs really ran, when they {@link #overlaps overlap}. */
        long overlapStart(Run other) {
            long first = Long.MAX_VALUE;
            for (Interval mine : active) {
                for (Interval theirs : other.active) {
                    if (mine.overlaps(theirs)) {
                        first = Math.min(first, Math.max(mine.from(), theirs.from()));
                    }
                }
            }
            return first;
        }

        @Override
        public String toString() {
            return source + " on " + process + " " + time(start) + ".." + (end == Long.MAX_VALUE ? "" : time(end)) + " "
                    + outcome.name().toLowerCase();
        }

        private static String time(long millis) {
            return LocalTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC)
                    .toString();
        }
    }

    /**
     * The judgement of one drill over its window.
     *
     * @param slots item-fires due in the window
     * @param missed due slots without a run, not coalesced (nor skipped)
     * @param unfinished slots with runs, none of which ended well: each was cut by its process's end or failed
     * @param abandoned with {@code failover} off, slots whose only runs were cut by a fault and not run again, as the
     *     configuration says
     * @param coalesced slots without a run that the misfire rule ran once, late, with a later fire's time: the ledger
     *     holds their {@code COALESCED} claim (without a ledger: their item's next run is a {@code MISFIRE} run)
     * @param skipped slots without a run whose claim the ledger holds as {@code SKIPPED}
     * @param doubled slots with more than one run
     * @param excused with {@code failover} on, doubled slots whose every extra run is a re-run after a run its process
     *     died, froze or was cut off in (with {@code failover} off a cut run is never run again: no double is excused)
     * @param overlaps pairs of runs of one item-fire that really ran at the same time, over the whole record, not
     *     excused
     * @param crossFireOverlaps pairs of runs of one item for different (or unknown) fires that really ran at the same
     *     time, not excused
     * @param excusedOverlaps pairs of runs of one item at the same time, of any fires, whose overlap began while one of
     *     them belonged to a process frozen during it that had not yet learned it lost its session, or cut off during it
     *     and not yet past its {@linkplain InterruptDeadline interrupt deadline} (nor told)
     * @param lateStops runs of a cut-off process still going at its {@linkplain InterruptDeadline interrupt deadline}
     *     while it was still cut off
     * @param undue runs of slots an operator took out of the schedule (a disabled item or job, a count lowered, a cron
     *     changed), well inside that time
     * @param failed runs of the window's slots whose end line said failed
     * @param unattributed runs whose fire is not known: killed before their end line, with a start line that did not
     *     know it (runs still going when the records were taken are not counted)
     * @param mismatches runs whose start line named another fire or source than their end line
     * @param cleanAgainAfter from the fault's end to the first fire from which every fire of the window ran every item
     *     exactly once, and successfully; zero when that fire is not later than the fault's end; empty when the window's
     *     last fire is not clean
     */
    record Judgement(
            int slots,
            List<Slot> missed,
            List<Slot> unfinished,
            List<Slot> abandoned,
            List<Slot> coalesced,
            List<Slot> skipped,
            Map<Slot, List<Run>> doubled,
            List<Slot> excused,
            List<String> overlaps,
            List<String> crossFireOverlaps,
            List<String> excusedOverlaps,
            List<String> lateStops,
            List<Run> undue,
            int failed,
            int unattributed,
            List<String> mismatches,
            Optional<Duration> cleanAgainAfter) {

        /** Doubled slots with a run no fault excuses. */
        int unexcused() {
            return doubled.size() - excused.size();
        }

        String summary(String drill) {
            return "drill " + drill + ": slots=" + slots + " missed=" + missed.size() + " unfinished="
                    + unfinished.size()
                    + " abandoned=" + abandoned.size()
                    + " coalesced=" + coalesced.size()
                    + " skipped=" + skipped.size()
                    + " doubled=" + doubled.size() + " excused=" + excused.size() + " overlaps=" + overlaps.size()
                    + " cross-fire-overlaps=" + crossFireOverlaps.size() + " excused-overlaps="
                    + excusedOverlaps.size() + " late-stops=" + lateStops.size() + " undue=" + undue.size() + " failed="
                    + failed + " unattributed="
                    + unattributed + " clean-again-after="
                    + cleanAgainAfter.map(after -> after.toMillis() + " ms").orElse("never");
        }

        /** The first {@code max} of each kind of fault, one per line, for reading what went wrong. */
        String details(int max) {
            StringBuilder out = new StringBuilder();
            list(out, "missed", missed, max);
            list(out, "unfinished", unfinished, max);
            list(out, "abandoned (failover off)", abandoned, max);
            list(out, "coalesced", coalesced, max);
            list(out, "skipped", skipped, max);
            list(
                    out,
                    "doubled",
                    doubled.entrySet().stream()
                            .map(slot -> slot.getKey() + (excused.contains(slot.getKey()) ? " (excused)" : "") + ": "
                                    + slot.getValue())
                            .toList(),
                    max);
            list(out, "overlapping", overlaps, max);
            list(out, "overlapping across fires", crossFireOverlaps, max);
            list(out, "overlapping, excused (a frozen or cut-off process not yet told)", excusedOverlaps, max);
            list(out, "stopped late (a cut-off process past its interrupt deadline)", lateStops, max);
            list(
                    out,
                    "undue runs",
                    undue.stream()
                            .map(run -> "item " + run.item() + " of " + run.fireTime() + ": " + run)
                            .toList(),
                    max);
            list(out, "start and end lines disagree", mismatches, max);
            return out.toString();
        }

        private static void list(StringBuilder out, String what, List<?> all, int max) {
            if (all.isEmpty()) {
                return;
            }
            out.append("  ").append(what).append(" (").append(all.size()).append("):\n");
            all.stream()
                    .limit(max)
                    .forEach(each -> out.append("    ").append(each).append('\n'));
            if (all.size() > max) {
                out.append("    ...\n");
            }
        }
    }

    /** Every run of every process, in start order. */
    static List<Run> runs(Collection<Process> processes) {
        return processes.stream()
                .flatMap(process -> runs(process).stream())
                .sorted(Comparator.comparingLong(Run::start).thenComparing(Run::process))
                .toList();
    }

    /** The runs of one process: each start line with the end line that names its item and start time. */
    static List<Run> runs(Process process) {
        Map<String, String[]> starts = new LinkedHashMap<>();
        Map<String, String[]> ends = new HashMap<>();
        for (String line : process.lines()) {
            String[] fields = line.trim().split(" ");
            if (fields[0].equals("start") && fields.length == 5) {
                starts.putIfAbsent(fields[1] + "@" + fields[3], fields);
            } else if (fields[0].equals("end") && fields.length == 7) {
                ends.putIfAbsent(fields[1] + "@" + fields[3], fields);
            }
        }
        List<Run> runs = new ArrayList<>();
        starts.forEach((key, start) -> runs.add(run(process, start, ends.remove(key))));
        // An end line without its start line (which a drill never loses) still is a run.
        ends.values().forEach(end -> runs.add(run(process, null, end)));
        return runs;
    }

    private static Run run(Process process, String[] start, String[] end) {
        int item = Integer.parseInt((start == null ? end : start)[1]);
        long started = process.trueTime((start == null ? end : start)[3]);
        Instant fireTime;
        String source;
        long ended;
        Outcome outcome;
        if (end != null) {
            fireTime = Instant.ofEpochMilli(Long.parseLong(end[2]));
            source = end[5];
            ended = process.trueTime(end[4]);
            outcome = end[6].equals("ok") ? Outcome.OK : Outcome.FAILED;
        } else {
            fireTime = start[2].equals("-") ? null : Instant.ofEpochMilli(Long.parseLong(start[2]));
            source = start[4];
            ended = process.endedAt();
            outcome = ended == Long.MAX_VALUE ? Outcome.RUNNING : Outcome.CUT;
        }
        started = startHeldBackByAFreeze(process, started);
        long cutAt = outcome == Outcome.CUT ? ended : Long.MAX_VALUE;
        List<Interval> active = new ArrayList<>();
        long from = started;
        for (Interval freeze : process.freezes().stream()
                .sorted(Comparator.comparingLong(Interval::from))
                .toList()) {
            if (freeze.to() <= from || freeze.from() >= ended) {
                continue;
            }
            cutAt = Math.min(cutAt, Math.max(freeze.from(), started));
            if (freeze.from() > from) {
                active.add(new Interval(from, freeze.from()));
            }
            from = Math.max(from, freeze.to());
        }
        if (from < ended) {
            active.add(new Interval(from, ended));
        }
        // A partition that began while it ran, or before its end was written, cuts it; one it started in (later than
        // what was in flight) does not excuse a re-run. So does a freeze before its end was written. (A process's end
        // is no such fault: a graceful stop writes its ends before it exits.)
        long recordedBy =
                outcome == Outcome.OK || outcome == Outcome.FAILED ? ended + END_RECORDED_WITHIN_MILLIS : ended;
        for (Interval cut : process.cutOff()) {
            if (cut.from() + START_IN_FLIGHT_MILLIS >= started && cut.from() < recordedBy) {
                cutAt = Math.min(cutAt, Math.max(cut.from(), started));
            }
        }
        for (Interval freeze : process.freezes()) {
            if (freeze.from() >= ended && freeze.from() < recordedBy) {
                cutAt = Math.min(cutAt, freeze.from());
            }
        }
        return new Run(process.name(), item, fireTime, source, started, ended, outcome, cutAt, List.copyOf(active));
    }

    /**
     * When a run whose start line came after a thaw really started: at the freeze, if the process printed the line before
     * it learned that the freeze cost it its session. A start write of an expired session fails once the process runs
     * again, so that run's start was recorded before the freeze, and only its line, printed once the item's code is
     * entered, waited for the thaw; the ledger holds it as running, and another instance re-runs it as a take-over. Dated
     * so, the freeze cuts it, as any run frozen while it ran. Otherwise its printed start.
     */
    private static long startHeldBackByAFreeze(Process process, long printed) {
        Optional<Interval> lastFreeze = process.freezes().stream()
                .filter(freeze -> freeze.to() <= printed)
                .max(Comparator.comparingLong(Interval::to));
        if (lastFreeze.isEmpty()) {
            return printed;
        }
        Interval freeze = lastFreeze.get();
        boolean beforeItLearned =
                process.lostSince(freeze.from()).map(lost -> printed <= lost).orElse(false);
        return beforeItLearned ? freeze.from() : printed;
    }

    /** Start lines that named another fire or source than their run's end line: the worker's guess was wrong. */
    static List<String> mismatches(Collection<Process> processes) {
        List<String> mismatches = new ArrayList<>();
        for (Process process : processes) {
            Map<String, String[]> starts = new HashMap<>();
            for (String line : process.lines()) {
                String[] fields = line.trim().split(" ");
                if (fields[0].equals("start") && fields.length == 5) {
                    starts.putIfAbsent(fields[1] + "@" + fields[3], fields);
                } else if (fields[0].equals("end") && fields.length == 7) {
                    String[] start = starts.get(fields[1] + "@" + fields[3]);
                    if (start != null
                            && !start[2].equals("-")
                            && !(start[2].equals(fields[2]) && start[4].equals(fields[5]))) {
                        mismatches.add(
                                process.name() + ": " + String.join(" ", start) + " / " + String.join(" ", fields));
                    }
                }
            }
        }
        return mismatches;
    }

    /** Whether every item of {@code fire} ran exactly once and succeeded. */
    static boolean isClean(List<Run> runs, Instant fire, int items) {
        return isClean(runs, fire, items, slot -> true, slot -> false);
    }

    /**
     * Whether every due item of {@code fire} ran exactly once and succeeded, or did not run and the misfire rule
     * accounts for it ({@code excusedMiss}).
     */
    static boolean isClean(List<Run> runs, Instant fire, int items, Predicate<Slot> due, Predicate<Slot> excusedMiss) {
        Map<Integer, List<Run>> byItem =
                runs.stream().filter(run -> fire.equals(run.fireTime())).collect(Collectors.groupingBy(Run::item));
        for (int item = 0; item < items; item++) {
            Slot slot = new Slot(item, fire);
            if (!due.test(slot)) {
                continue;
            }
            List<Run> itemRuns = byItem.getOrDefault(item, List.of());
            boolean accounted = itemRuns.isEmpty()
                    ? excusedMiss.test(slot)
                    : itemRuns.size() == 1 && itemRuns.get(0).outcome() == Outcome.OK;
            if (!accounted) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every item of {@code fire} is accounted for, taking a missed item whose next run is a {@code MISFIRE}
     * run as coalesced: for a drill waiting for a settled cluster from the live records, before any ledger is read
     * (items longer than a period are coalesced on every fire).
     */
    static boolean isSettled(List<Run> runs, Instant fire, int items) {
        return isClean(runs, fire, items, slot -> true, slot -> isCoalesced(runs, slot));
    }

    /** Judges the window's fires, and every run for overlaps; {@code faultEnd} in epoch milliseconds. */
    static Judgement judge(Collection<Process> processes, Window window, long faultEnd) {
        return judge(processes, window, faultEnd, Rules.DEFAULT);
    }

    /** Judges the window's fires under the drill's rules, and every run for overlaps. */
    static Judgement judge(Collection<Process> processes, Window window, long faultEnd, Rules rules) {
        List<Run> runs = runs(processes);
        Map<String, Process> byName =
                processes.stream().collect(Collectors.toMap(Process::name, process -> process, (a, b) -> a));
        Map<Slot, List<Run>> bySlot = bySlot(runs);
        List<Slot> missed = new ArrayList<>();
        List<Slot> unfinished = new ArrayList<>();
        List<Slot> abandoned = new ArrayList<>();
        List<Slot> coalesced = new ArrayList<>();
        List<Slot> skipped = new ArrayList<>();
        Map<Slot, List<Run>> doubled = new LinkedHashMap<>();
        List<Slot> excused = new ArrayList<>();
        List<Run> undue = new ArrayList<>();
        int failed = 0;
        List<Instant> fires = window.fires();
        for (Instant fire : fires) {
            for (int item = 0; item < window.items(); item++) {
                Slot slot = new Slot(item, fire);
                List<Run> slotRuns = bySlot.getOrDefault(slot, List.of());
                failed += (int) slotRuns.stream()
                        .filter(run -> run.outcome() == Outcome.FAILED)
                        .count();
                if (window.isNeverDue(slot)) {
                    undue.addAll(slotRuns);
                }
                if (!window.isDue(slot)) {
                    continue;
                }
                if (slotRuns.isEmpty()) {
                    String recorded = recorded(rules, runs, slot);
                    (recorded.equals("COALESCED") ? coalesced : recorded.equals("SKIPPED") ? skipped : missed)
                            .add(slot);
                } else if (slotRuns.stream().noneMatch(run -> run.outcome() == Outcome.OK)) {
                    boolean everyRunCut = slotRuns.stream().allMatch(run -> run.cutAt() != Long.MAX_VALUE);
                    (!rules.failover() && everyRunCut ? abandoned : unfinished).add(slot);
                }
                if (slotRuns.size() > 1) {
                    doubled.put(slot, slotRuns);
                    // With failover off a run a fault cut is not run again: nothing excuses a second run.
                    if (rules.failover() && everyExtraRunExcused(slotRuns)) {
                        excused.add(slot);
                    }
                }
            }
        }
        Overlaps overlaps = overlaps(runs, byName, rules.deadline());
        Predicate<Slot> excusedMiss = slot -> !recorded(rules, runs, slot).isEmpty();
        return new Judgement(
                dueSlots(window),
                missed,
                unfinished,
                abandoned,
                coalesced,
                skipped,
                doubled,
                excused,
                overlaps.sameFire(),
                overlaps.crossFire(),
                overlaps.excused(),
                rules.deadline().lateStops(processes),
                undue,
                failed,
                unattributed(runs),
                mismatches(processes),
                cleanAgainAfter(runs, fires, window.items(), faultEnd, window::isDue, excusedMiss));
    }

    private static Map<Slot, List<Run>> bySlot(List<Run> runs) {
        Map<Slot, List<Run>> bySlot =
                new TreeMap<>(Comparator.comparing(Slot::fireTime).thenComparingInt(Slot::item));
        runs.stream()
                .filter(run -> run.fireTime() != null)
                .forEach(run -> bySlot.computeIfAbsent(new Slot(run.item(), run.fireTime()), slot -> new ArrayList<>())
                        .add(run));
        return bySlot;
    }

    private static int dueSlots(Window window) {
        return (int) window.fires().stream()
                .flatMap(fire -> IntStream.range(0, window.items()).mapToObj(item -> new Slot(item, fire)))
                .filter(window::isDue)
                .count();
    }

    /** Runs cut by their process's end whose fire no line named. */
    private static int unattributed(List<Run> runs) {
        return (int) runs.stream()
                .filter(run -> run.fireTime() == null && run.outcome() == Outcome.CUT)
                .count();
    }

    /** Pairs of runs of one item that really ran at the same time, described, by how they are judged. */
    private record Overlaps(List<String> sameFire, List<String> crossFire, List<String> excused) {}

    private static Overlaps overlaps(List<Run> runs, Map<String, Process> byName, InterruptDeadline deadline) {
        Overlaps overlaps = new Overlaps(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        Map<Integer, List<Run>> byItem =
                runs.stream().collect(Collectors.groupingBy(Run::item, TreeMap::new, Collectors.toList()));
        byItem.forEach((item, itemRuns) -> {
            for (int i = 0; i < itemRuns.size(); i++) {
                for (int j = i + 1; j < itemRuns.size(); j++) {
                    Run a = itemRuns.get(i);
                    Run b = itemRuns.get(j);
                    if (!a.overlaps(b)) {
                        continue;
                    }
                    boolean sameFire = a.fireTime() != null && a.fireTime().equals(b.fireTime());
                    String pair = "item " + item + ": " + a.fireTime() + " " + a + " and " + b.fireTime() + " " + b;
                    long at = a.overlapStart(b);
                    if (notYetTold(byName.get(a.process()), a, at, deadline)
                            || notYetTold(byName.get(b.process()), b, at, deadline)) {
                        overlaps.excused().add(pair);
                    } else {
                        (sameFire ? overlaps.sameFire() : overlaps.crossFire()).add(pair);
                    }
                }
            }
        });
        return overlaps;
    }

    /**
     * How the ledger recorded a slot nobody ran: {@code COALESCED}, {@code SKIPPED}, or empty (nothing that excuses
     * it). Without a ledger, {@code COALESCED} when its item's next run is a {@code MISFIRE} run.
     */
    private static String recorded(Rules rules, List<Run> runs, Slot slot) {
        if (rules.ledger().isEmpty()) {
            return isCoalesced(runs, slot) ? "COALESCED" : "";
        }
        String state = rules.ledger().get().getOrDefault(slot, "");
        return state.equals("COALESCED") || state.equals("SKIPPED") ? state : "";
    }

    /**
     * Whether the run's process was frozen or cut off while running it, and the moment {@code at} comes before that
     * process learned it lost its session: nothing could have told it yet that the item had moved. A cut-off process is
     * not frozen: it must stop its items by its interrupt deadline whatever it was told, so that deadline ends the
     * excuse too.
     */
    private static boolean notYetTold(Process process, Run run, long at, InterruptDeadline deadline) {
        if (process == null) {
            return false;
        }
        boolean frozen = process.freezes().stream()
                .filter(freeze -> freeze.from() >= run.start() && freeze.from() < run.end())
                .anyMatch(freeze -> at < process.learnedAt(freeze.from(), freeze.to()));
        boolean cutOff = process.cutOff().stream()
                .filter(cut -> cut.from() >= run.start() && cut.from() < run.end())
                .anyMatch(cut -> at < Math.min(process.learnedAt(cut.from(), cut.to()), deadline.stopBy(cut.from())));
        return frozen || cutOff;
    }

    /** A missed slot whose item's next run (by fire time) is a misfire run: the misfire rule's one late run. */
    private static boolean isCoalesced(List<Run> runs, Slot slot) {
        return runs.stream()
                .filter(run -> run.item() == slot.item()
                        && run.fireTime() != null
                        && run.fireTime().isAfter(slot.fireTime()))
                .min(Comparator.comparing(Run::fireTime))
                .map(next -> next.source().equals(MISFIRE))
                .orElse(false);
    }

    /**
     * Each run of the slot after the first (by start) needs an earlier run of the slot that a fault hit before it
     * started: its process was killed or frozen while running it. Each such run excuses one re-run.
     */
    private static boolean everyExtraRunExcused(List<Run> slotRuns) {
        List<Run> byStart =
                slotRuns.stream().sorted(Comparator.comparingLong(Run::start)).toList();
        int used = 0;
        for (int i = 1; i < byStart.size(); i++) {
            Run rerun = byStart.get(i);
            long excuses = byStart.subList(0, i).stream()
                    .filter(earlier -> earlier.cutAt() <= rerun.start())
                    .count();
            if (excuses <= used) {
                return false;
            }
            used++;
        }
        return true;
    }

    private static Optional<Duration> cleanAgainAfter(
            List<Run> runs,
            List<Instant> fires,
            int items,
            long faultEnd,
            Predicate<Slot> due,
            Predicate<Slot> excusedMiss) {
        Instant cleanFrom = null;
        for (int i = fires.size() - 1; i >= 0 && isClean(runs, fires.get(i), items, due, excusedMiss); i--) {
            cleanFrom = fires.get(i);
        }
        if (cleanFrom == null) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(Math.max(0, cleanFrom.toEpochMilli() - faultEnd)));
    }
}
