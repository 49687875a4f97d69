package io.shardingjob.core.execution;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one fire did on one instance.
 *
 * @param epoch the assignment epoch the fire ran under (0 when it ran nothing because the job was never sharded)
 * @param results the items that ran, in item order
 * @param skipped items this instance owns but did not run, each with the reason (disabled, still running, moved)
 * @param skipReason why the whole fire ran nothing, or {@code null} when it ran normally
 */
public record FireReport(
        String jobName, long epoch, List<ItemResult> results, Map<Integer, String> skipped, String skipReason) {

    public FireReport {
        results = List.copyOf(results);
        skipped = Map.copyOf(skipped);
    }

    public static FireReport skippedEntirely(String jobName, String reason) {
        return new FireReport(jobName, 0, List.of(), Map.of(), reason);
    }

    /**
     * Whether the fire ran items here and the last run of each succeeded: a retry that succeeded makes up for the runs
     * before it.
     */
    public boolean succeeded() {
        Map<Integer, ItemResult> last = new HashMap<>();
        results.forEach(result -> last.put(result.context().item(), result));
        return !last.isEmpty() && last.values().stream().allMatch(ItemResult::succeeded);
    }

    /** The items that ran, in order. */
    public List<Integer> items() {
        return results.stream().map(result -> result.context().item()).toList();
    }
}
