package io.shardingjob.core.sharding.strategy;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a strategy needs to decide an assignment.
 *
 * @param shardingTotalCount the number of items, at least 1
 * @param instances the live, enabled instance ids, sorted ascending, without duplicates
 * @param previousAssignment the assignment in force before this reshard (instance id to items); empty on the first
 *     sharding. It may name instances that are gone and items beyond the new count.
 */
public record ShardingRequest(
        String jobName, int shardingTotalCount, List<String> instances, Map<String, List<Integer>> previousAssignment) {

    public ShardingRequest {
        Objects.requireNonNull(jobName, "jobName");
        instances = List.copyOf(instances);
        previousAssignment = Map.copyOf(previousAssignment);
        if (shardingTotalCount < 1) {
            throw new IllegalArgumentException("shardingTotalCount must be at least 1, was " + shardingTotalCount);
        }
    }

    /** A request with no previous assignment. */
    public ShardingRequest(String jobName, int shardingTotalCount, List<String> instances) {
        this(jobName, shardingTotalCount, instances, Map.of());
    }
}
