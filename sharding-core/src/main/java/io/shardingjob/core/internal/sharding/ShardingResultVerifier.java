package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Checks a strategy's answer before it is written to ZooKeeper. Custom strategies are user code: an item assigned
 * twice runs twice, an item never assigned silently never runs, and both are far cheaper to catch here, with the
 * strategy and job named, than to diagnose from the behaviour of a cluster.
 */
final class ShardingResultVerifier {

    private ShardingResultVerifier() {}

    /**
     * The result in the request's instance order, with sorted items and an empty list for every instance the strategy
     * left out; unmodifiable.
     *
     * @throws IllegalStateException if an item is missing, duplicated or out of range, or an instance is unknown
     */
    public static Map<String, List<Integer>> verified(
            ShardingStrategy strategy, ShardingRequest request, Map<String, List<Integer>> result) {
        String prefix = "Sharding strategy '" + strategy.name() + "' for job '" + request.jobName() + "' ";
        if (result == null) {
            throw new IllegalStateException(prefix + "returned no assignment");
        }
        List<String> unknown = new ArrayList<>(result.keySet());
        unknown.removeAll(request.instances());
        unknown.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
        if (!unknown.isEmpty()) {
            throw new IllegalStateException(prefix + "assigned items to unknown instances " + unknown);
        }
        int total = request.shardingTotalCount();
        Set<Integer> seen = new HashSet<>();
        Map<String, List<Integer>> verified = new LinkedHashMap<>();
        for (String instance : request.instances()) {
            List<Integer> given = result.get(instance);
            List<Integer> items = given == null ? new ArrayList<>() : new ArrayList<>(given);
            for (Integer item : items) {
                if (item == null || item < 0 || item >= total) {
                    throw new IllegalStateException(
                            prefix + "assigned item " + item + " outside 0.." + (total - 1) + " to '" + instance + "'");
                }
                if (!seen.add(item)) {
                    throw new IllegalStateException(prefix + "assigned item " + item + " twice");
                }
            }
            Collections.sort(items);
            verified.put(instance, Collections.unmodifiableList(items));
        }
        if (seen.size() < total) {
            List<Integer> missing = IntStream.range(0, total)
                    .filter(item -> !seen.contains(item))
                    .boxed()
                    .toList();
            throw new IllegalStateException(prefix + "did not assign items " + missing);
        }
        return Collections.unmodifiableMap(verified);
    }
}
