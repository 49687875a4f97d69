package io.shardingjob.core.sharding.strategy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Registered in META-INF/services only to prove that {@link ShardingStrategies#defaults()} discovers strategies. */
public final class ReverseTestStrategy implements ShardingStrategy {

    public static final String NAME = "reverse";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        List<String> order = new ArrayList<>(request.instances());
        Collections.reverse(order);
        return AverageAllocationStrategy.allocate(request, order);
    }
}
