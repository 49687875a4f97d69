package io.shardingjob.core.benchmark;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** The runs of items a benchmark recorded, and what they tell: idle times between an item's runs, overlaps. */
final class ItemRuns {

    private ItemRuns() {}

    /** One run of an item, as its code saw it: its instance, its item and fire, and when it ran (nanoTime). */
    record Run(String instance, int item, Instant fireTime, String source, long start, long end) {}

    /**
     * Idle times between consecutive runs of an item on the same instance, for the instances chosen; an item still idle
     * at the end counts as idle until then, and the figures it decides are marked as at least that.
     */
    record Idle(List<Double> millis, double censoredAbove) {

        double at(double fraction) {
            return millis.isEmpty()
                    ? Double.NaN
                    : millis.get((int) Math.min(millis.size() - 1, fraction * millis.size()));
        }

        private String shown(double fraction) {
            double value = at(fraction);
            return (value >= censoredAbove ? ">=" : "") + String.format("%.0f", value);
        }

        String inDelaysBeyond(Idle direct, int delay) {
            return String.format(
                    "%.1f / %.1f / %.1f",
                    (at(0.5) - direct.at(0.5)) / delay,
                    (at(0.99) - direct.at(0.99)) / delay,
                    (at(1) - direct.at(1)) / delay);
        }

        @Override
        public String toString() {
            return shown(0.5) + " / " + shown(0.99) + " / " + shown(1);
        }
    }

    /** The idle times after the runs that ended in [from, to), each until the item's next run or {@code until}. */
    static Idle idle(List<Run> runs, long from, long to, long until, Predicate<String> instances) {
        List<Double> idle = new ArrayList<>();
        double censoredAbove = Double.MAX_VALUE;
        Map<String, List<Run>> byInstanceAndItem = runs.stream()
                .filter(run -> instances.test(run.instance()) && run.start() < until)
                .collect(Collectors.groupingBy(run -> run.instance() + "/" + run.item()));
        for (List<Run> of : byInstanceAndItem.values()) {
            List<Run> sorted =
                    of.stream().sorted(Comparator.comparingLong(Run::start)).toList();
            for (int i = 0; i < sorted.size(); i++) {
                Run ended = sorted.get(i);
                if (ended.end() < from || ended.end() >= to) {
                    continue;
                }
                if (i + 1 < sorted.size()) {
                    idle.add(millis(sorted.get(i + 1).start() - ended.end()));
                } else {
                    double open = millis(until - ended.end());
                    idle.add(open);
                    censoredAbove = Math.min(censoredAbove, open);
                }
            }
        }
        idle.sort(Comparator.naturalOrder());
        return new Idle(idle, censoredAbove);
    }

    static long overlaps(List<Run> runs) {
        long overlaps = 0;
        Map<Integer, List<Run>> byItem = runs.stream().collect(Collectors.groupingBy(Run::item));
        for (List<Run> of : byItem.values()) {
            List<Run> sorted =
                    of.stream().sorted(Comparator.comparingLong(Run::start)).toList();
            for (int i = 1; i < sorted.size(); i++) {
                if (sorted.get(i).start() < sorted.get(i - 1).end()) {
                    overlaps++;
                }
            }
        }
        return overlaps;
    }

    static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }
}
