package io.shardingjob.boot.console;

import io.shardingjob.core.execution.LedgerFire;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Where the timeline of a job's recent fires draws each item run: one lane per instance (by name, top to bottom), each
 * run a bar from the time its claim's owner took it to its end, or to now while it runs; time runs left to right over
 * the span of the runs shown. Built from the ledger's claims, which keep the current owner's run of each item: a run
 * taken over shows as its taker's. A pure function, tested without a page.
 */
final class TimelineLayout {

    /** Where the lanes' names are written, left of the plot. */
    static final int LABEL_WIDTH = 130;

    static final int LANE_HEIGHT = 24;

    static final int BAR_HEIGHT = 16;

    /** Below the lanes: the times the plot starts and ends at. */
    static final int AXIS_HEIGHT = 20;

    /** A run shorter than a pixel still shows. */
    static final double MIN_BAR_WIDTH = 2;

    private TimelineLayout() {}

    /** How a run ended, or stands: the bar's colour. */
    enum Outcome {
        SUCCEEDED,
        FAILED,
        RUNNING,
        /** Given up unfinished, or its instance is gone: failover or its owner's next run finishes the item. */
        UNFINISHED
    }

    /** A fire's runs, of one job. */
    record Fires(String job, List<LedgerFire> fires) {}

    /**
     * One item run.
     *
     * @param x where it starts, in the picture's pixels
     * @param duration how long it ran, or has run so far
     */
    record Bar(
            String instance,
            int lane,
            double x,
            double y,
            double width,
            String job,
            int item,
            Instant fireTime,
            Duration duration,
            Outcome outcome) {}

    record Lane(String instance, int y) {}

    /**
     * @param from the time at the plot's left edge
     * @param to the time at its right edge
     */
    record Picture(
            List<Lane> lanes,
            List<Bar> bars,
            @Nullable Instant from,
            @Nullable Instant to,
            int width,
            int height) {

        boolean isEmpty() {
            return bars.isEmpty();
        }
    }

    /**
     * @param width the picture's width in pixels, lane names included
     * @param now the end of a run that has not ended
     */
    static Picture of(List<Fires> jobs, Instant now, int width) {
        List<Run> runs = new ArrayList<>();
        for (Fires job : jobs) {
            for (LedgerFire fire : job.fires()) {
                for (LedgerFire.Item claim : fire.items()) {
                    Outcome outcome = outcome(claim);
                    if (outcome != null) {
                        runs.add(new Run(job.job(), fire.fireTime(), claim, outcome, end(claim, outcome, now)));
                    }
                }
            }
        }
        if (runs.isEmpty()) {
            return new Picture(List.of(), List.of(), null, null, width, 0);
        }
        Instant from = runs.stream()
                .map(run -> run.claim().started())
                .min(Instant::compareTo)
                .orElseThrow();
        Instant to = runs.stream().map(Run::end).max(Instant::compareTo).orElseThrow();
        double span = Math.max(1, Duration.between(from, to).toMillis());
        double plot = width - LABEL_WIDTH;
        List<String> instances = new ArrayList<>(
                new TreeSet<>(runs.stream().map(run -> run.claim().instanceId()).toList()));
        List<Lane> lanes = new ArrayList<>();
        for (int lane = 0; lane < instances.size(); lane++) {
            lanes.add(new Lane(instances.get(lane), lane * LANE_HEIGHT));
        }
        List<Bar> bars = new ArrayList<>();
        for (Run run : runs) {
            int lane = instances.indexOf(run.claim().instanceId());
            Instant start = run.claim().started();
            double x = LABEL_WIDTH + plot * Duration.between(from, start).toMillis() / span;
            double length = plot * Duration.between(start, run.end()).toMillis() / span;
            bars.add(new Bar(
                    run.claim().instanceId(),
                    lane,
                    Math.min(x, width - MIN_BAR_WIDTH),
                    lane * LANE_HEIGHT + (LANE_HEIGHT - BAR_HEIGHT) / 2.0,
                    Math.max(MIN_BAR_WIDTH, length),
                    run.job(),
                    run.claim().item(),
                    run.fireTime(),
                    Duration.between(start, run.end()),
                    run.outcome()));
        }
        return new Picture(lanes, bars, from, to, width, instances.size() * LANE_HEIGHT + AXIS_HEIGHT);
    }

    /** How a claim's run stands; null for a claim whose item did not run (yet) for the fire. */
    private static @Nullable Outcome outcome(LedgerFire.Item claim) {
        return switch (claim.state()) {
            case DONE -> Outcome.SUCCEEDED;
            case FAILED -> Outcome.FAILED;
            case RUNNING -> claim.live() ? Outcome.RUNNING : Outcome.UNFINISHED;
            case RELEASED -> Outcome.UNFINISHED;
            case RESERVED, HANDED_ON, COALESCED, SKIPPED -> null;
        };
    }

    private static Instant end(LedgerFire.Item claim, Outcome outcome, Instant now) {
        Instant ended = claim.ended();
        if (ended != null) {
            return ended;
        }
        // A run still going, or one whose instance died in it: it has lasted until now, as far as anyone knows.
        return outcome == Outcome.SUCCEEDED || outcome == Outcome.FAILED || now.isBefore(claim.started())
                ? claim.started()
                : now;
    }

    private record Run(String job, Instant fireTime, LedgerFire.Item claim, Outcome outcome, Instant end) {}
}
