package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.registry.ClockSkew;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The JSON documents of the {@code sharding} endpoint. Times are ISO-8601 strings, so that the output does not depend on
 * how the application's JSON mapper writes dates. Actuator's mapper leaves out null fields; the documents that have
 * some keep them ({@code "leader": null} means "no leader"), so that every documented field is always there.
 */
public final class ShardingDescriptors {

    private ShardingDescriptors() {}

    /**
     * {@code GET /actuator/sharding}.
     *
     * @param clockSkew how far this instance's clock is from ZooKeeper's, {@code null} until measured
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ShardingDescriptor(
            String instanceId,
            boolean connected,
            List<JobSummary> jobs,
            @Nullable ClockSkewDescriptor clockSkew) implements OperationResponseBody {

        static ShardingDescriptor of(ShardingOperations operations) {
            Map<String, List<String>> followers = operations.followers();
            return new ShardingDescriptor(
                    operations.instanceId(),
                    operations.isConnected(),
                    operations.jobs().stream()
                            .map(job -> JobSummary.of(job, followers))
                            .toList(),
                    operations.clockSkew().map(ClockSkewDescriptor::of).orElse(null));
        }
    }

    /**
     * This instance's clock against ZooKeeper's, from the last measurement.
     *
     * @param skewMillis this instance's clock minus ZooKeeper's: positive when this instance is ahead
     * @param uncertaintyMillis how far from {@code skewMillis} the true skew may be (half the measuring round trip)
     * @param maxClockSkewMillis {@code sharding.zookeeper.max-clock-skew}
     * @param exceeded whether the skew is certainly beyond the bound
     * @param measuredAt when it was measured, on this instance's clock
     */
    public record ClockSkewDescriptor(
            long skewMillis, long uncertaintyMillis, long maxClockSkewMillis, boolean exceeded, String measuredAt) {

        static ClockSkewDescriptor of(ClockSkew skew) {
            return new ClockSkewDescriptor(
                    skew.skew().toMillis(),
                    skew.uncertainty().toMillis(),
                    skew.bound().toMillis(),
                    skew.exceeded(),
                    skew.measuredAt().toString());
        }
    }

    /**
     * One job in the summary.
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
                    effectiveTotal(configuration, job.assignment()),
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

    /**
     * {@code GET /actuator/sharding/{job}}.
     *
     * @param onDemand whether the job has no schedule ({@code cron} is {@code -}) and fires only when triggered
     * @param after the jobs this job follows, none when it follows none
     * @param on which fires of those jobs it follows: {@code success} or {@code completion}
     * @param itemWise whether its item i runs as soon as item i of the upstream fire succeeded
     * @param followers the jobs that follow this one, as far as this application and the namespace know, sorted
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
            List<String> followers)
            implements OperationResponseBody {

        static JobDescriptor of(JobCoordinator job, List<ExecutionRecord> recent, Map<String, List<String>> followers) {
            JobConfiguration configuration = job.configuration();
            Assignment assignment = job.assignment();
            Set<String> disabledInstances = new HashSet<>(job.disabledInstances());
            Set<String> instanceIds = new TreeSet<>(job.liveInstances());
            instanceIds.addAll(assignment.itemsByInstance().keySet());
            List<InstanceDescriptor> instances = new ArrayList<>();
            for (String id : instanceIds) {
                instances.add(new InstanceDescriptor(id, !disabledInstances.contains(id), assignment.itemsOf(id)));
            }
            Map<Integer, String> owners = assignment.ownersByItem();
            Set<Integer> running = new HashSet<>(job.ledger().runningItems());
            Set<Integer> disabledItems = new HashSet<>(job.disabledItems());
            Map<Integer, String> failoverOwners = job.ledger().failoverOwners();
            List<ItemDescriptor> items = new ArrayList<>();
            int total = effectiveTotal(configuration, assignment);
            for (int item = 0; item < total; item++) {
                items.add(new ItemDescriptor(
                        item,
                        configuration.itemParameters().get(item),
                        owners.get(item),
                        running.contains(item),
                        failoverOwners.get(item),
                        disabledItems.contains(item)));
            }
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
                    followers.getOrDefault(job.jobName(), List.of()));
        }
    }

    /** With dynamic sharding the total is the assignment's (the number of instances), not the configured count. */
    static int effectiveTotal(JobConfiguration configuration, Assignment assignment) {
        return configuration.dynamicSharding() ? assignment.shardingTotalCount() : configuration.shardingTotalCount();
    }

    /**
     * An instance of a job: live, or still named in the assignment.
     *
     * @param enabled whether the instance takes part in the assignment
     */
    public record InstanceDescriptor(String id, boolean enabled, List<Integer> items) {}

    /**
     * An item of a job.
     *
     * @param instance its owner under the current epoch, {@code null} when none
     * @param running whether some instance marks it running now
     * @param failoverInstance the instance that took it over from a crashed or departed owner since the last reshard,
     *     {@code null} when none did
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ItemDescriptor(
            int item,
            String parameter,
            @Nullable String instance,
            boolean running,
            @Nullable String failoverInstance,
            boolean disabled) {}

    /** One item execution on this instance; times are ISO-8601. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ExecutionDescriptor(
            int item,
            String instance,
            long epoch,
            String fireTime,
            String start,
            String end,
            String outcome,
            String source,
            @Nullable String failure,
            int shardingTotalCount,
            String parameter,
            int retry,
            String jobParameter) {

        static ExecutionDescriptor of(ExecutionRecord record) {
            return new ExecutionDescriptor(
                    record.item(),
                    record.instance(),
                    record.epoch(),
                    record.fireTime().toString(),
                    record.start().toString(),
                    record.end().toString(),
                    record.outcome().name(),
                    record.source().name(),
                    record.failure(),
                    record.shardingTotalCount(),
                    record.parameter(),
                    record.retry(),
                    record.jobParameter());
        }
    }

    /**
     * {@code GET /actuator/sharding/{job}/executions}.
     *
     * @param store {@code memory} or {@code jdbc}
     * @param writes the database log's counts since start-up, {@code null} for the in-memory log
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ExecutionsDescriptor(
            String job,
            int page,
            int size,
            String store,
            List<ExecutionDescriptor> executions,
            ExecutionPage.@Nullable Writes writes)
            implements OperationResponseBody {

        static ExecutionsDescriptor of(ExecutionPage page) {
            return new ExecutionsDescriptor(
                    page.job(),
                    page.page(),
                    page.size(),
                    page.store(),
                    page.executions().stream().map(ExecutionDescriptor::of).toList(),
                    page.writes());
        }
    }

    /**
     * The answer to a write operation; the HTTP status tells success (200) from 400, 404, 409 and 503.
     *
     * @param fireTime the fire a {@code trigger} started (every run's fire time); absent from the other answers
     * @param input the input a {@code 400} refused ({@code item}, {@code instanceId}, {@code jobParameter},
     *     {@code cron}, ...: {@link io.shardingjob.core.operation.InvalidOperationException#input()}); absent from the
     *     other answers
     */
    public record ActionResult(
            String job,
            String target,
            String action,
            String result,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Instant fireTime,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            String input)
            implements OperationResponseBody {

        public ActionResult(String job, String target, String action, String result) {
            this(job, target, action, result, null, null);
        }

        public ActionResult(String job, String target, String action, String result, @Nullable Instant fireTime) {
            this(job, target, action, result, fireTime, null);
        }
    }
}
