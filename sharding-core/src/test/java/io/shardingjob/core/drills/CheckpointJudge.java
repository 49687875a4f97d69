package io.shardingjob.core.drills;

import io.shardingjob.core.drills.DrillRecords.Interval;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges one fire of the checkpoint drill from the lines the {@link CheckpointWorker}s printed: every unit of every item
 * processed; each run a kill cut continued by the next run of its item from the last checkpoint the cut run saved; and
 * no unit, nor any item, processed by two processes at the same time while both were alive (a killed process is alive
 * until its kill).
 */
final class CheckpointJudge {

    private CheckpointJudge() {}

    /** One unit as a process printed it. */
    record Unit(String process, int item, int unit, Interval interval) {}

    /** One run of one item in one process, from its {@code begin} line to its {@code done} line or its process's end. */
    record Run(
            String process,
            int item,
            String source,
            int from,
            long begin,
            Optional<Long> done,
            long processEndedAt,
            List<Unit> units,
            Set<Integer> lastCheckpoints) {

        /** While it could process units: until its last unit, or its process's kill; open while its process lives. */
        Interval active() {
            return new Interval(begin, done.orElse(processEndedAt));
        }

        boolean cut() {
            return done.isEmpty() && processEndedAt != Long.MAX_VALUE;
        }

        int lastUnit() {
            return units.isEmpty() ? from - 1 : units.get(units.size() - 1).unit();
        }
    }

    /** How a cut run was continued: by which run, from which unit, and whether that is its last checkpoint. */
    record Resumption(Run cut, Optional<Run> next) {

        boolean fromTheLastCheckpoint() {
            return next.isPresent()
                    && cut.lastCheckpoints().contains(next.get().from())
                    && (next.get().units().isEmpty()
                            || next.get().units().get(0).unit() == next.get().from());
        }

        /** The units the cut run processed after its last checkpoint, which the next run processes again. */
        int redone() {
            return next.map(run -> cut.lastUnit() + 1 - run.from()).orElse(0);
        }

        @Override
        public String toString() {
            return "item " + cut.item() + " cut in " + cut.process() + " after unit " + cut.lastUnit()
                    + " (last checkpoint " + cut.lastCheckpoints() + "), "
                    + next.map(run -> "resumed at " + run.from() + " by " + run.process() + " (" + run.source() + ")")
                            .orElse("never resumed");
        }
    }

    record Judgement(
            int items,
            int processed,
            int processedTwice,
            Map<Integer, List<Integer>> missing,
            List<String> atOnce,
            List<Resumption> resumptions) {

        boolean aKillCutAnItem() {
            return resumptions.stream()
                    .anyMatch(resumption -> !resumption.cut().units().isEmpty()
                            && resumption.cut().lastUnit() < CheckpointWorker.UNITS - 1);
        }

        List<Resumption> wrongResumptions() {
            return resumptions.stream()
                    .filter(resumption -> !resumption.fromTheLastCheckpoint())
                    .toList();
        }

        String summary(String drill) {
            int redone = resumptions.stream().mapToInt(Resumption::redone).sum();
            return drill + ": " + items + " items x " + CheckpointWorker.UNITS + " units, " + processed
                    + " units processed, " + processedTwice + " twice (" + redone
                    + " redone after the last checkpoint), "
                    + missing.values().stream().mapToInt(List::size).sum()
                    + " missing, " + atOnce.size() + " at once; " + resumptions;
        }
    }

    static Judgement judge(List<DrillRecords.Process> records, Instant fireTime, int items) {
        List<Run> runs = new ArrayList<>();
        for (DrillRecords.Process process : records) {
            runs.addAll(runs(process, fireTime.toEpochMilli()));
        }
        List<Unit> units = runs.stream().flatMap(run -> run.units().stream()).toList();
        Map<String, List<Unit>> byUnit = new HashMap<>();
        units.forEach(unit -> byUnit.computeIfAbsent(unit.item() + ":" + unit.unit(), key -> new ArrayList<>())
                .add(unit));
        Map<Integer, List<Integer>> missing = new TreeMap<>();
        for (int item = 0; item < items; item++) {
            for (int unit = 0; unit < CheckpointWorker.UNITS; unit++) {
                if (!byUnit.containsKey(item + ":" + unit)) {
                    missing.computeIfAbsent(item, key -> new ArrayList<>()).add(unit);
                }
            }
        }
        List<String> atOnce = new ArrayList<>();
        byUnit.values()
                .forEach(same -> pairs(same, (a, b) -> {
                    if (a.interval().overlaps(b.interval())) {
                        atOnce.add("unit " + a.unit() + " of item " + a.item() + " in " + a.process() + " and "
                                + b.process());
                    }
                }));
        pairs(runs, (a, b) -> {
            if (a.item() == b.item()
                    && !a.process().equals(b.process())
                    && a.active().overlaps(b.active())) {
                atOnce.add("item " + a.item() + " run in " + a.process() + " " + a.active() + " and " + b.process()
                        + " " + b.active());
            }
        });
        List<Resumption> resumptions = runs.stream()
                .filter(Run::cut)
                .map(cut -> new Resumption(
                        cut,
                        runs.stream()
                                .filter(run -> run.item() == cut.item() && run.begin() > cut.begin())
                                .min(Comparator.comparingLong(Run::begin))))
                .toList();
        int twice =
                (int) byUnit.values().stream().filter(same -> same.size() > 1).count();
        return new Judgement(items, units.size(), twice, missing, atOnce, resumptions);
    }

    /** The runs of the fire one process printed, in the order they began. */
    private static List<Run> runs(DrillRecords.Process process, long fire) {
        List<RunLines> runs = new ArrayList<>();
        Map<Integer, RunLines> open = new HashMap<>();
        for (String line : process.lines()) {
            String[] fields = line.split(" ");
            if (fields.length < 4 || !fields[2].equals(Long.toString(fire))) {
                continue;
            }
            int item = Integer.parseInt(fields[1]);
            switch (fields[0]) {
                case "begin" -> {
                    RunLines run = new RunLines(
                            process, item, fields[4], Integer.parseInt(fields[5]), Long.parseLong(fields[6]));
                    open.put(item, run);
                    runs.add(run);
                }
                case "unit" ->
                    open.get(item)
                            .units
                            .add(new Unit(
                                    process.name(),
                                    item,
                                    Integer.parseInt(fields[3]),
                                    new Interval(Long.parseLong(fields[4]), Long.parseLong(fields[5]))));
                case "saving" -> open.get(item).lastCheckpoints.add(Integer.parseInt(fields[3]));
                case "saved" -> {
                    open.get(item).lastCheckpoints.clear();
                    open.get(item).lastCheckpoints.add(Integer.parseInt(fields[3]));
                }
                case "done" -> open.get(item).done = Optional.of(Long.parseLong(fields[4]));
                default -> {
                    // Not a line of a run.
                }
            }
        }
        return runs.stream().map(RunLines::run).toList();
    }

    /** A run's lines as they are read, until its process's record ends. */
    private static final class RunLines {

        private final DrillRecords.Process process;
        private final int item;
        private final String source;
        private final int from;
        private final long begin;
        private final List<Unit> units = new ArrayList<>();
        private Optional<Long> done = Optional.empty();

        /**
         * The last checkpoint saved (the one it began from before any), and one whose save began after it and was not
         * seen to end: a kill between the write and its {@code saved} line leaves that one.
         */
        private final Set<Integer> lastCheckpoints = new LinkedHashSet<>();

        RunLines(DrillRecords.Process process, int item, String source, int from, long begin) {
            this.process = process;
            this.item = item;
            this.source = source;
            this.from = from;
            this.begin = begin;
            lastCheckpoints.add(from);
        }

        Run run() {
            return new Run(
                    process.name(),
                    item,
                    source,
                    from,
                    begin,
                    done,
                    process.endedAt(),
                    List.copyOf(units),
                    Set.copyOf(lastCheckpoints));
        }
    }

    private interface PairCheck<T> {
        void check(T a, T b);
    }

    private static <T> void pairs(List<T> all, PairCheck<T> check) {
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                check.check(all.get(i), all.get(j));
            }
        }
    }
}
