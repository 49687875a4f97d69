package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The default strategy, kept identical to ElasticJob's average allocation so that jobs migrated from it shard the same
 * way: every instance runs a contiguous block of {@code n / k} items and the {@code n % k} left over go one each to the
 * first instances. When there are fewer items than instances the extra instances get nothing and stand by, ready to
 * take over on the next reshard. It ignores the previous assignment, so a join or a leave can move many items; use
 * {@link StickyStrategy} when moving items is expensive.
 */
final class AverageAllocationStrategy implements ShardingStrategy {

    public static final String NAME = "average";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        return allocate(request, request.instances());
    }

    /**
     * Average allocation over instances taken in {@code allocationOrder}, a permutation of the request's instances; the
     * result is still keyed in the request's order, so the hash based strategies only have to choose who comes first.
     */
    static Map<String, List<Integer>> allocate(ShardingRequest request, List<String> allocationOrder) {
        int total = request.shardingTotalCount();
        int count = allocationOrder.size();
        if (count == 0) {
            return new LinkedHashMap<>();
        }
        int perInstance = total / count;
        Map<String, List<Integer>> allocated = new HashMap<>();
        for (int i = 0; i < count; i++) {
            List<Integer> items = new ArrayList<>(perInstance + 1);
            for (int item = i * perInstance; item < (i + 1) * perInstance; item++) {
                items.add(item);
            }
            allocated.put(allocationOrder.get(i), items);
        }
        for (int item = perInstance * count; item < total; item++) {
            allocated.get(allocationOrder.get(item - perInstance * count)).add(item);
        }
        Map<String, List<Integer>> byInstance = new LinkedHashMap<>();
        for (String instance : request.instances()) {
            byInstance.put(instance, List.copyOf(allocated.get(instance)));
        }
        return byInstance;
    }
}
