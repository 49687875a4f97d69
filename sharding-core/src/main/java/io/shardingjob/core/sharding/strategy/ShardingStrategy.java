package io.shardingjob.core.sharding.strategy;

import java.util.List;
import java.util.Map;

/**
 * Decides which instance runs which sharding item. Implementations are pure functions: the same request always gives
 * the same answer, and they never touch ZooKeeper.
 *
 * <p>Custom strategies are found by {@link #name()}: register them with {@link java.util.ServiceLoader} under
 * {@code META-INF/services/io.shardingjob.core.sharding.strategy.ShardingStrategy}, or hand them to
 * {@link ShardingStrategies#with(ShardingStrategy...)}.
 */
public interface ShardingStrategy {

    /** The name a job configuration uses to pick this strategy, for example {@code "average"}. */
    String name();

    /**
     * Assigns every item {@code 0..shardingTotalCount-1} to exactly one of the request's instances.
     *
     * @return for every instance of the request, in the request's order, the sorted items it runs (possibly none)
     */
    Map<String, List<Integer>> shard(ShardingRequest request);
}
