package io.shardingjob.boot.actuate;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.sharding.Assignment;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when this instance is connected to ZooKeeper and every job has a leader and a complete assignment (every item
 * owned by a live instance, for the current count); DOWN otherwise, with the details per job. A reshard in progress
 * alone does not make it DOWN: the previous assignment still runs.
 */
public class ShardingHealthIndicator extends AbstractHealthIndicator {

    private final ShardingOperations operations;

    public ShardingHealthIndicator(ShardingOperations operations) {
        super("Sharded jobs health check failed");
        this.operations = operations;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        boolean connected = operations.isConnected();
        boolean healthy = connected;
        Map<String, Object> jobs = new LinkedHashMap<>();
        for (JobCoordinator job : operations.jobs()) {
            String leader = job.leaderId().orElse(null);
            boolean complete = isComplete(job);
            healthy &= leader != null && complete;
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("leader", leader == null ? "none" : leader);
            details.put("assignment", complete ? "complete" : "incomplete");
            details.put("epoch", job.assignment().epoch());
            details.put("reshardPending", job.isReshardPending());
            jobs.put(job.jobName(), details);
        }
        (healthy ? builder.up() : builder.down())
                .withDetail("instanceId", operations.instanceId())
                .withDetail("connected", connected)
                .withDetail("jobs", jobs);
    }

    private static boolean isComplete(JobCoordinator job) {
        Assignment assignment = job.assignment();
        int total = job.configuration().shardingTotalCount();
        if (assignment.epoch() == 0 || assignment.shardingTotalCount() != total) {
            return false;
        }
        Set<String> live = new HashSet<>(job.liveInstances());
        Map<Integer, String> owners = assignment.ownersByItem();
        for (int item = 0; item < total; item++) {
            String owner = owners.get(item);
            if (owner == null || !live.contains(owner)) {
                return false;
            }
        }
        return true;
    }
}
