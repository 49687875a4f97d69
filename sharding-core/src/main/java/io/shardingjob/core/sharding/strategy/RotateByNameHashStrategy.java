package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * ElasticJob's rotate strategy: average allocation starting from an instance chosen by the job name's hash and
 * wrapping around. Like {@link OdevityByNameHashStrategy} it exists to spread many small jobs over all instances
 * instead of stacking them on the first ones, but with {@code k} possible starting points instead of two.
 */
final class RotateByNameHashStrategy implements ShardingStrategy {

    @Override
    public String name() {
        return "rotate";
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        List<String> order = new ArrayList<>(request.instances());
        // The remainder's absolute value, which is ElasticJob's Math.abs(hash) % size without its fault:
        // Math.abs(Integer.MIN_VALUE) is still negative.
        int offset = order.isEmpty() ? 0 : Math.abs(request.jobName().hashCode() % order.size());
        Collections.rotate(order, -offset);
        return AverageAllocationStrategy.allocate(request, order);
    }
}
