package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One job in {@code GET /actuator/sharding}: where an operator reads at a glance who leads the job, which of its items
 * this instance owns, and whether it is disabled or waiting for a reshard; {@link JobDescriptor} has the rest.
 *
 * @param leader the leader's instance id, {@code null} while there is none
 * @param localItems the items this instance owns under the current epoch
 * @param onDemand whether the job has no schedule ({@code cron} is {@code -}) and fires only when triggered
 * @param after the jobs this job follows, none when it follows none
 * @param on which fires of those jobs it follows: {@code success} or {@code completion}
 * @param itemWise whether its item i runs as soon as item i of the upstream fire succeeded
 * @param followers the jobs that follow this one, as far as this application and the namespace know, sorted
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record JobSummary(
        String name,
        String cron,
        int shardingTotalCount,
        @Nullable String leader,
        long epoch,
        boolean reshardPending,
        boolean disabled,
        List<Integer> localItems,
        boolean onDemand,
        List<String> after,
        String on,
        boolean itemWise,
        List<String> followers) {

    static JobSummary of(JobCoordinator job, Map<String, List<String>> followers) {
        JobConfiguration configuration = job.configuration();
        return new JobSummary(
                job.jobName(),
                configuration.cron(),
                JobDescriptor.effectiveTotal(configuration, job.assignment()),
                job.leaderId().orElse(null),
                job.assignment().epoch(),
                job.isReshardPending(),
                configuration.disabled(),
                job.localItems(),
                configuration.isOnDemand(),
                configuration.after(),
                configuration.on().value(),
                configuration.itemWise(),
                followers.getOrDefault(job.jobName(), List.of()));
    }
}
