package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The assignment a reshard computes from the state it read: the next epoch, the total (the configured count, or the
 * cluster's size with dynamic sharding) and the items of each sharding instance, by the job's strategy and verified. A
 * pure function kept apart from the write that records it ({@link Reshard}), so that the rule can be read,
 * and tested, without ZooKeeper, as the strategies and {@link DynamicSharding} are.
 */
final class NextAssignment {

    private NextAssignment() {}

    static Assignment compute(
            String jobName,
            JobConfiguration config,
            List<String> instances,
            Assignment previous,
            Function<String, ShardingStrategy> strategies) {
        long epoch = previous.epoch() + 1;
        if (config.dynamicSharding()) {
            // The total follows the cluster; the configured count is not used.
            return new Assignment(
                    epoch,
                    DynamicSharding.total(instances.size()),
                    DynamicSharding.assign(instances, previous.itemsByInstance()));
        }
        if (instances.isEmpty()) {
            return new Assignment(epoch, config.shardingTotalCount(), Map.of());
        }
        ShardingStrategy strategy = strategies.apply(config.strategy());
        ShardingRequest request =
                new ShardingRequest(jobName, config.shardingTotalCount(), instances, previous.itemsByInstance());
        Map<String, List<Integer>> result = ShardingResultVerifier.verified(strategy, request, strategy.shard(request));
        return new Assignment(epoch, config.shardingTotalCount(), result);
    }
}
