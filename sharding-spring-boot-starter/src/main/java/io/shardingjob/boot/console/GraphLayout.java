package io.shardingjob.boot.console;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Where the graph of jobs draws each job and each arrow: a column per layer, left to right, a job's layer being 0 when
 * it follows no job and otherwise 1 + the deepest layer of the jobs it follows (the longest path from a job that
 * follows none). Within a column, a job takes the mean row of its upstreams, so that a chain reads as a straight
 * line, or the next free row below. An upstream that is not a job of the application is drawn too, in column 0, known only by
 * name. A pure function of the jobs, tested without a page.
 */
final class GraphLayout {

    static final int BOX_WIDTH = 190;

    static final int BOX_HEIGHT = 44;

    static final int COLUMN_GAP = 110;

    static final int ROW_GAP = 22;

    static final int MARGIN = 12;

    private GraphLayout() {}

    /**
     * One job as the graph needs it.
     *
     * @param after the jobs it follows
     * @param on which of their fires it follows
     * @param itemWise whether its items follow the upstream's items one by one
     * @param onDemand whether it has no cron of its own
     */
    record Job(String name, List<String> after, FollowOn on, boolean itemWise, boolean onDemand) {

        Job {
            after = List.copyOf(after);
        }

        static Job of(JobConfiguration configuration) {
            return new Job(
                    configuration.name(),
                    configuration.after(),
                    configuration.on(),
                    configuration.itemWise(),
                    configuration.isOnDemand());
        }
    }

    /**
     * A job's box, its top left corner at ({@code x}, {@code y}).
     *
     * @param inApplication whether it is a job of the application; else an upstream known only by name
     */
    record Box(String job, int layer, int row, int x, int y, boolean inApplication, boolean onDemand) {}

    /** An arrow from an upstream's box to its follower's, labelled with how it follows. */
    record Arrow(String from, String to, String label, int x1, int y1, int x2, int y2) {}

    record Picture(List<Box> boxes, List<Arrow> arrows, int width, int height) {

        Box box(String job) {
            return boxes.stream()
                    .filter(box -> box.job().equals(job))
                    .findFirst()
                    .orElseThrow();
        }
    }

    static Picture of(Collection<Job> jobs) {
        Map<String, Job> byName = new TreeMap<>();
        jobs.forEach(job -> byName.put(job.name(), job));
        Map<String, Integer> layers = layers(byName);
        Map<String, Integer> rows = rows(byName, layers);
        Map<String, Box> boxes = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> placed : rows.entrySet()) {
            String name = placed.getKey();
            int layer = layers.get(name);
            int row = placed.getValue();
            Job job = byName.get(name);
            boxes.put(
                    name,
                    new Box(
                            name,
                            layer,
                            row,
                            MARGIN + layer * (BOX_WIDTH + COLUMN_GAP),
                            MARGIN + row * (BOX_HEIGHT + ROW_GAP),
                            job != null,
                            job != null && job.onDemand()));
        }
        List<Arrow> arrows = new ArrayList<>();
        for (Job job : byName.values()) {
            Box to = boxes.get(job.name());
            for (String upstream : new HashSet<>(job.after()).stream().sorted().toList()) {
                Box from = boxes.get(upstream);
                if (from == null || upstream.equals(job.name())) {
                    continue;
                }
                arrows.add(new Arrow(
                        upstream,
                        job.name(),
                        job.on().value() + (job.itemWise() ? ", item-wise" : ""),
                        from.x() + BOX_WIDTH,
                        from.y() + BOX_HEIGHT / 2,
                        to.x(),
                        to.y() + BOX_HEIGHT / 2));
            }
        }
        int columns =
                layers.values().stream().mapToInt(layer -> layer + 1).max().orElse(0);
        int lines = rows.values().stream().mapToInt(row -> row + 1).max().orElse(0);
        int width = columns == 0 ? 0 : 2 * MARGIN + columns * BOX_WIDTH + (columns - 1) * COLUMN_GAP;
        int height = lines == 0 ? 0 : 2 * MARGIN + lines * BOX_HEIGHT + (lines - 1) * ROW_GAP;
        return new Picture(List.copyOf(boxes.values()), arrows, width, height);
    }

    /** Every job's layer, and the layer 0 of each upstream known only by name. */
    static Map<String, Integer> layers(Map<String, Job> jobs) {
        Map<String, Integer> layers = new TreeMap<>();
        for (String job : jobs.keySet()) {
            layer(job, jobs, layers, new HashSet<>());
        }
        return layers;
    }

    /**
     * The longest path from a job that follows none. A cycle (which the application refuses at start-up, but a job
     * defined while it runs may still close one) is cut where the walk meets a job it is inside of.
     */
    private static int layer(String name, Map<String, Job> jobs, Map<String, Integer> layers, Set<String> walking) {
        Integer known = layers.get(name);
        if (known != null) {
            return known;
        }
        Job job = jobs.get(name);
        if (job == null) {
            layers.put(name, 0);
            return 0;
        }
        walking.add(name);
        int layer = 0;
        for (String upstream : job.after()) {
            if (!walking.contains(upstream)) {
                layer = Math.max(layer, 1 + layer(upstream, jobs, layers, walking));
            }
        }
        walking.remove(name);
        layers.put(name, layer);
        return layer;
    }

    /**
     * Each job's row, column by column from the left: ordered by the mean row of their upstreams, then by name, each
     * job takes that mean row (so that a chain reads as a straight line) unless a job above it took it already.
     */
    private static Map<String, Integer> rows(Map<String, Job> jobs, Map<String, Integer> layers) {
        int deepest = layers.values().stream().mapToInt(Integer::intValue).max().orElse(-1);
        Map<String, Integer> rows = new LinkedHashMap<>();
        for (int layer = 0; layer <= deepest; layer++) {
            int at = layer;
            List<String> column = layers.entrySet().stream()
                    .filter(entry -> entry.getValue() == at)
                    .map(Map.Entry::getKey)
                    .sorted(Comparator.comparingDouble((String name) -> meanUpstreamRow(jobs.get(name), rows))
                            .thenComparing(Comparator.naturalOrder()))
                    .toList();
            int next = 0;
            for (String name : column) {
                int row = Math.max(next, (int) Math.round(meanUpstreamRow(jobs.get(name), rows)));
                rows.put(name, row);
                next = row + 1;
            }
        }
        return rows;
    }

    private static double meanUpstreamRow(@Nullable Job job, Map<String, Integer> rows) {
        if (job == null) {
            return 0;
        }
        return job.after().stream()
                .filter(rows::containsKey)
                .mapToInt(rows::get)
                .average()
                .orElse(0);
    }
}
