package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.sharding.Assignment;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * {@code GET /actuator/sharding/{job}}: where an operator reads one job whole: its configuration as stored, its
 * {@link InstanceDescriptor instances} and the items each owns, each {@link ItemDescriptor item}'s state, and this
 * instance's recent {@link ExecutionDescriptor executions} of it.
 *
 * @param onDemand whether the job has no schedule ({@code cron} is {@code -}) and fires only when triggered
 * @param after the jobs this job follows, none when it follows none
 * @param on which fires of those jobs it follows: {@code success} or {@code completion}
 * @param itemWise whether its item i runs as soon as item i of the upstream fire succeeded
 * @param followers the jobs that follow this one, as far as this application and the namespace know, sorted
 * @param budget what the job costs ZooKeeper against its limits, with the limits it is near ({@link BudgetDescriptor})
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record JobDescriptor(
        String name,
        @Nullable String leader,
        long epoch,
        int shardingTotalCount,
        boolean reshardPending,
        boolean failover,
        String cron,
        String timeZone,
        String strategy,
        boolean disabled,
        List<InstanceDescriptor> instances,
        List<ItemDescriptor> items,
        List<ExecutionDescriptor> recentExecutions,
        boolean dynamicSharding,
        int retries,
        @Nullable String timeout,
        boolean onDemand,
        List<String> after,
        String on,
        boolean itemWise,
        List<String> followers,
        BudgetDescriptor budget)
        implements OperationResponseBody {

    static JobDescriptor of(JobCoordinator job, List<ExecutionRecord> recent, Map<String, List<String>> followers) {
        JobConfiguration configuration = job.configuration();
        // One read of the configuration and of the assignment, so that the parts describe the same epoch.
        Assignment assignment = job.assignment();
        List<InstanceDescriptor> instances = InstanceDescriptor.allOf(job, assignment);
        int total = effectiveTotal(configuration, assignment);
        List<ItemDescriptor> items = ItemDescriptor.allOf(job, configuration, assignment, total);
        return new JobDescriptor(
                job.jobName(),
                job.leaderId().orElse(null),
                assignment.epoch(),
                total,
                job.isReshardPending(),
                configuration.failover(),
                configuration.cron(),
                configuration.timeZone().getId(),
                configuration.strategy(),
                configuration.disabled(),
                instances,
                items,
                recent.stream().map(ExecutionDescriptor::of).toList(),
                configuration.dynamicSharding(),
                configuration.retries(),
                configuration.hasTimeout() ? configuration.timeout().toString() : null,
                configuration.isOnDemand(),
                configuration.after(),
                configuration.on().value(),
                configuration.itemWise(),
                followers.getOrDefault(job.jobName(), List.of()),
                BudgetDescriptor.of(job));
    }

    /** With dynamic sharding the total is the assignment's (the number of instances), not the configured count. */
    static int effectiveTotal(JobConfiguration configuration, Assignment assignment) {
        return configuration.dynamicSharding() ? assignment.shardingTotalCount() : configuration.shardingTotalCount();
    }
}
