package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * XXL-JOB's sharding broadcast, with stable indexes: the total is the number of sharding instances and each gets one
 * item. Unlike XXL-JOB, which renumbers every executor on each change (so the data range of a survivor shifts), an
 * instance keeps its item while it is still below the new total; only newcomers and instances whose item fell off the
 * end take the free items, lowest first, in instance order. The total never exceeds
 * {@link JobConfiguration#MAX_SHARDING_TOTAL_COUNT}, whatever the cluster's size: instances beyond it get no item. A
 * pure function, like the strategies.
 */
final class DynamicSharding {

    private DynamicSharding() {}

    /**
     * The total for this many sharding instances: at least 1, so that a job with nobody online still has an item, and
     * at most the limit of items.
     */
    public static int total(int instances) {
        return Math.max(1, Math.min(instances, JobConfiguration.MAX_SHARDING_TOTAL_COUNT));
    }

    /** One item per instance (none beyond the limit), in the order of {@code instances}: the live, enabled ones. */
    public static Map<String, List<Integer>> assign(List<String> instances, Map<String, List<Integer>> previous) {
        int total = Math.min(instances.size(), JobConfiguration.MAX_SHARDING_TOTAL_COUNT);
        Map<String, Integer> kept = new LinkedHashMap<>();
        Set<Integer> taken = new HashSet<>();
        for (String instance : instances) {
            List<Integer> items = previous.getOrDefault(instance, List.of());
            // An instance that held several items (the job was static before) keeps its lowest one that is free.
            items.stream()
                    .filter(item -> item < total && !taken.contains(item))
                    .min(Integer::compare)
                    .ifPresent(item -> {
                        kept.put(instance, item);
                        taken.add(item);
                    });
        }
        Deque<Integer> free = IntStream.range(0, total)
                .filter(item -> !taken.contains(item))
                .boxed()
                .collect(Collectors.toCollection(ArrayDeque::new));
        Map<String, List<Integer>> assignment = new LinkedHashMap<>();
        for (String instance : instances) {
            Integer item = kept.containsKey(instance) ? kept.get(instance) : free.pollFirst();
            assignment.put(instance, item == null ? List.of() : List.of(item));
        }
        return assignment;
    }
}
