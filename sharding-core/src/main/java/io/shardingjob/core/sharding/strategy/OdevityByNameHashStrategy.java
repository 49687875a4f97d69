package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * ElasticJob's odevity strategy: average allocation, but jobs whose name hashes to an odd number count instances from
 * the highest id down. With many small jobs (fewer items than instances) plain average allocation piles every job onto
 * the lowest instances; flipping the order for about half of the jobs spreads that load over both ends of the list.
 */
final class OdevityByNameHashStrategy implements ShardingStrategy {

    @Override
    public String name() {
        return "odevity";
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        List<String> order = new ArrayList<>(request.instances());
        // A bit test rather than "% 2 == 1", which is false for negative odd hashes.
        if ((request.jobName().hashCode() & 1) != 0) {
            Collections.reverse(order);
        }
        return AverageAllocationStrategy.allocate(request, order);
    }
}
