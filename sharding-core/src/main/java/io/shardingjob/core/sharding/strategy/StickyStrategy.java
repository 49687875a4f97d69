package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * Keeps items where they already run. None of ElasticJob's strategies look at the previous assignment, so a single
 * instance joining can move most items, and every moved item pays for a warm-up (caches, connections, local state).
 * This strategy moves the fewest items possible while keeping the load as even as average allocation does: every
 * instance ends with {@code floor(n/k)} or {@code ceil(n/k)} items, and exactly {@code n % k} get the larger share.
 * Without a previous assignment it gives the same result as {@link AverageAllocationStrategy}.
 */
final class StickyStrategy implements ShardingStrategy {

    @Override
    public String name() {
        return "sticky";
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        List<String> instances = request.instances();
        int total = request.shardingTotalCount();
        int count = instances.size();
        if (count == 0) {
            return new LinkedHashMap<>();
        }
        List<TreeSet<Integer>> kept = keptItems(request);
        int[] targets = targets(kept, total);
        Set<Integer> owned = new HashSet<>();
        for (int i = 0; i < count; i++) {
            // Releasing the highest items keeps each instance's items low and contiguous where possible.
            while (kept.get(i).size() > targets[i]) {
                kept.get(i).pollLast();
            }
            owned.addAll(kept.get(i));
        }
        List<Integer> unowned = IntStream.range(0, total)
                .filter(item -> !owned.contains(item))
                .boxed()
                .toList();
        // Two rounds, first up to the floor and then the remainder, so that from scratch this is average allocation.
        int next = 0;
        int floor = total / count;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < count && next < unowned.size(); i++) {
                int limit = round == 0 ? floor : targets[i];
                while (kept.get(i).size() < limit && next < unowned.size()) {
                    kept.get(i).add(unowned.get(next++));
                }
            }
        }
        Map<String, List<Integer>> result = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            result.put(instances.get(i), List.copyOf(kept.get(i)));
        }
        return result;
    }

    /**
     * The previous items each current instance may keep. An item claimed twice by a corrupt previous assignment stays
     * with the first claimant in instance order, so the result remains a function of the request alone.
     */
    private static List<TreeSet<Integer>> keptItems(ShardingRequest request) {
        Set<Integer> claimed = new HashSet<>();
        List<TreeSet<Integer>> kept = new ArrayList<>();
        for (String instance : request.instances()) {
            TreeSet<Integer> items = new TreeSet<>();
            for (Integer item : request.previousAssignment().getOrDefault(instance, List.of())) {
                if (item != null && item >= 0 && item < request.shardingTotalCount() && claimed.add(item)) {
                    items.add(item);
                }
            }
            kept.add(items);
        }
        return kept;
    }

    /**
     * Target sizes. Giving the {@code n % k} larger shares to the instances that already hold the most items is what
     * makes the number of moved items minimal; ties go to the lower instance, as in average allocation.
     */
    private static int[] targets(List<TreeSet<Integer>> kept, int total) {
        int count = kept.size();
        int[] targets = new int[count];
        List<Integer> byKeptDescending = IntStream.range(0, count)
                .boxed()
                .sorted(Comparator.comparingInt((Integer i) -> -kept.get(i).size())
                        .thenComparingInt(i -> i))
                .toList();
        for (int rank = 0; rank < count; rank++) {
            targets[byKeptDescending.get(rank)] = total / count + (rank < total % count ? 1 : 0);
        }
        return targets;
    }
}
