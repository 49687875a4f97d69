package io.shardingjob.boot.actuate;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.registry.ClockSkew;
import io.shardingjob.core.sharding.Assignment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP when this instance is connected to ZooKeeper and every job has a leader and a complete assignment (every item
 * owned by a live instance, for the current count); DOWN otherwise, with the details per job. A reshard in progress
 * alone does not make it DOWN: the previous assignment still runs, nor does this instance standing by while the
 * application is not ready (detail {@code standingBy}): the others own its items.
 *
 * <p>The detail {@code clockSkew} says how far this instance's clock is from ZooKeeper's, once measured; beyond
 * {@code sharding.zookeeper.max-clock-skew} a {@code warnings} detail says so, and the status stays what it was. A
 * skewed clock does not break the promise (fires are keyed by their scheduled time in the fire ledger and fenced by
 * ZooKeeper, never by a comparison of clocks): it makes this instance fire early or late and record times that disagree
 * with the others'. DOWN would have an orchestrator restart or unroute a working instance, which fixes no clock, and
 * every instance of a host whose time synchronisation failed at once.
 *
 * <p>A job within 80 % of one of ZooKeeper's limits ({@code JobCoordinator.budget()}) gets a {@code budget} detail, one
 * entry per limit with its arithmetic, and the {@code warnings} detail says so; the status stays what it was, for the
 * same reason: the instance runs its items correctly, and another instance would cost ZooKeeper the same. What moves a
 * job away from a limit is a change of its settings (fewer items, a shorter parameter, a shorter retention), which no
 * restart makes. A job past a limit does not start.
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
        List<String> warnings = new ArrayList<>();
        for (JobCoordinator job : operations.jobs()) {
            String leader = job.leaderId().orElse(null);
            boolean complete = isComplete(job);
            healthy &= leader != null && complete;
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("leader", leader == null ? "none" : leader);
            details.put("assignment", complete ? "complete" : "incomplete");
            details.put("epoch", job.assignment().epoch());
            details.put("reshardPending", job.isReshardPending());
            // Not ready: it takes no items, and is no less healthy for it.
            details.put("standingBy", job.isStandingBy());
            CoordinationBudget budget = job.budget();
            if (!budget.findings().isEmpty()) {
                details.put("budget", BudgetDescriptor.FindingDescriptor.allOf(budget));
                budget.findings()
                        .forEach(finding -> warnings.add(
                                "job " + job.jobName() + " is near a limit of ZooKeeper's: " + finding.message()));
            }
            jobs.put(job.jobName(), details);
        }
        (healthy ? builder.up() : builder.down())
                .withDetail("instanceId", operations.instanceId())
                .withDetail("connected", connected)
                .withDetail("jobs", jobs);
        operations.clockSkew().ifPresent(skew -> {
            builder.withDetail("clockSkew", details(skew));
            if (skew.exceeded()) {
                warnings.add(0, warning(skew));
            }
        });
        if (!warnings.isEmpty()) {
            builder.withDetail("warnings", warnings);
        }
    }

    private static Map<String, Object> details(ClockSkew skew) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("skewMillis", skew.skew().toMillis());
        details.put("uncertaintyMillis", skew.uncertainty().toMillis());
        details.put("maxClockSkewMillis", skew.bound().toMillis());
        details.put("exceeded", skew.exceeded());
        details.put("measuredAt", skew.measuredAt().toString());
        return details;
    }

    /** What an operator reads: how far, which way, the bound, and what follows. */
    static String warning(ClockSkew skew) {
        return "this instance's clock is " + skew.describe() + ", more than sharding.zookeeper.max-clock-skew ("
                + skew.bound().toMillis() + " ms): its fires start "
                + (skew.skew().isNegative() ? "late" : "early")
                + " and its recorded times disagree with the other instances'; check its time synchronisation";
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
