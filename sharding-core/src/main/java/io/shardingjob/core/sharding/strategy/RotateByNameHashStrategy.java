package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * ElasticJob's rotate strategy: average allocation starting from an instance chosen by the job name's hash and
 * wrapping around. Like {@link OdevityByNameHashStrategy} it exists to spread many small jobs over all instances
 * instead of stacking them on the first ones, but with {@code k} possible starting points instead of two.
 */
final class RotateByNameHashStrategy implements ShardingStrategy {

    public static final String NAME = "rotate";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        List<String> instances = request.instances();
        if (instances.isEmpty()) {
            return AverageAllocationStrategy.allocate(request, instances);
        }
        // floorMod rather than Math.abs(hash) % size: Math.abs(Integer.MIN_VALUE) is still negative.
        int offset = Math.abs(request.jobName().hashCode() % instances.size());
        List<String> order = new ArrayList<>(instances.size());
        order.addAll(instances.subList(offset, instances.size()));
        order.addAll(instances.subList(0, offset));
        return AverageAllocationStrategy.allocate(request, order);
    }
}
