package io.shardingjob.core.execution;

import java.time.Instant;
import java.util.Map;

/**
 * A fire all of whose items ended, across the cluster.
 *
 * @param items how each item ended, by item
 */
public record FireCompletion(String jobName, Instant fireTime, int shardingTotalCount, Map<Integer, ItemEnd> items) {

    public FireCompletion {
        items = Map.copyOf(items);
    }

    /** Whether every item succeeded (a disabled item counts as not run, not as failed). */
    public boolean succeeded() {
        return items.values().stream()
                .noneMatch(end -> end.outcome() == Outcome.FAILED || end.outcome() == Outcome.TIMED_OUT);
    }

    /** How one item ended: its last run (after its retries), or skipped. */
    public enum Outcome {
        SUCCESS,
        FAILED,
        TIMED_OUT,
        /** It did not run for this fire: disabled, or still running from an earlier fire with misfire off. */
        SKIPPED;

        public static Outcome of(ItemResult result) {
            return result.timedOut() ? TIMED_OUT : result.succeeded() ? SUCCESS : FAILED;
        }
    }

    /** @param instanceId the instance the item ended on */
    public record ItemEnd(String instanceId, Outcome outcome) {}
}
