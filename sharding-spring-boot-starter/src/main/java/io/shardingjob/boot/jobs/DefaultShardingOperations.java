package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.executionlog.ExecutionHistory;
import io.shardingjob.boot.executionlog.ExecutionLog;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.StoredJobs;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.registry.ClockSkew;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The operations facade over the running jobs. */
public final class DefaultShardingOperations implements ShardingOperations {

    private static final Logger log = LoggerFactory.getLogger(DefaultShardingOperations.class);

    private final RunningJobs jobs;

    private final ExecutionHistory history;

    private final ExecutionLog executionLog;

    private final Supplier<List<ShardedJobAlert>> alerts;

    public DefaultShardingOperations(
            RunningJobs jobs,
            ExecutionHistory history,
            ExecutionLog executionLog,
            Supplier<List<ShardedJobAlert>> alerts) {
        this.jobs = jobs;
        this.history = history;
        this.executionLog = executionLog;
        this.alerts = alerts;
    }

    @Override
    public String instanceId() {
        return jobs.instanceId();
    }

    @Override
    public boolean isConnected() {
        RegistryCenter registry = jobs.registry();
        return registry != null && registry.isConnected();
    }

    @Override
    public Optional<ClockSkew> clockSkew() {
        RegistryCenter registry = jobs.registry();
        return registry == null ? Optional.empty() : registry.clockSkew();
    }

    @Override
    public List<JobCoordinator> jobs() {
        return jobs.all().stream().map(ScheduledShardedJob::coordinator).toList();
    }

    @Override
    public Optional<JobCoordinator> job(String name) {
        return jobs.find(name).map(ScheduledShardedJob::coordinator);
    }

    @Override
    public Map<String, List<String>> followers() {
        Map<String, JobConfiguration> known = new LinkedHashMap<>();
        RegistryCenter registry = jobs.registry();
        if (registry != null && registry.isConnected()) {
            try {
                known.putAll(StoredJobs.configurations(registry.client()));
            } catch (Exception ex) {
                log.debug("Could not read the jobs stored in the namespace; the graph shows this application's", ex);
            }
        }
        jobs().forEach(job -> known.put(job.jobName(), job.configuration()));
        return StoredJobs.followers(known.values());
    }

    @Override
    public Optional<Instant> nextFireTime(String name) {
        return Optional.ofNullable(scheduled(name).nextFireTime());
    }

    @Override
    public List<ExecutionRecord> recentExecutions(String name) {
        scheduled(name);
        return history.recent(name);
    }

    @Override
    public ExecutionPage executions(String name, int page, int size) {
        scheduled(name);
        if (page < 0 || size < 1) {
            throw new IllegalArgumentException(
                    "page must be 0 or more and size 1 or more, were " + page + " and " + size);
        }
        return executionLog.executions(name, page, size);
    }

    @Override
    public List<ShardedJobAlert> recentAlerts() {
        return alerts.get();
    }

    /**
     * The core records the fire and announces it; every instance, this one included, then starts its items through the
     * job's one fire path ({@link ScheduledShardedJob#fire}), which the job's coordinator was built to call.
     */
    @Override
    public Optional<Instant> trigger(String name, @Nullable String jobParameter) {
        JobCoordinator coordinator = coordinator(name);
        try {
            // The core checks the parameter first, started or not: a refused one is neither recorded nor logged.
            Instant fireTime = coordinator.trigger(jobParameter);
            log.info(
                    "Job {}: fire requested by an operator{}",
                    name,
                    jobParameter == null ? "" : " with job parameter '" + jobParameter + "'");
            return Optional.of(fireTime);
        } catch (IllegalStateException ex) {
            if (!coordinator.isStarted()) {
                // Not started, or stopped meanwhile: nothing was recorded.
                return Optional.empty();
            }
            throw ex;
        }
    }

    @Override
    public List<Integer> rerunFailed(String name, Instant fireTime) {
        List<Integer> items = coordinator(name).rerunFailed(fireTime);
        log.info("Job {}: re-run of the fire at {} requested by an operator: items {}", name, fireTime, items);
        return items;
    }

    @Override
    public void reshard(String name) {
        coordinator(name).requestReshard();
        log.info("Job {}: reshard requested by an operator", name);
    }

    @Override
    public void disable(String name) {
        storeDisabled(coordinator(name), true);
    }

    @Override
    public void enable(String name) {
        storeDisabled(coordinator(name), false);
    }

    @Override
    public void disableItem(String name, int item) {
        coordinator(name).disableItem(item);
        log.info("Job {}: item {} disabled by an operator", name, item);
    }

    @Override
    public void enableItem(String name, int item) {
        coordinator(name).enableItem(item);
        log.info("Job {}: item {} enabled by an operator", name, item);
    }

    @Override
    public void disableInstance(String name, String instanceId) {
        coordinator(name).disableInstance(instanceId);
        log.info("Job {}: instance {} disabled by an operator", name, instanceId);
    }

    @Override
    public void enableInstance(String name, String instanceId) {
        coordinator(name).enableInstance(instanceId);
        log.info("Job {}: instance {} enabled by an operator", name, instanceId);
    }

    private ScheduledShardedJob scheduled(String name) {
        return jobs.find(name)
                .orElseThrow(() -> new NoSuchElementException("No sharded job named '" + name
                        + "'; jobs: "
                        + jobs.all().stream()
                                .map(job -> job.coordinator().jobName())
                                .toList()));
    }

    private JobCoordinator coordinator(String name) {
        return scheduled(name).coordinator();
    }

    /**
     * Stores the configuration with the job's {@code disabled} flag set, at the version read, so that a concurrent
     * change of another property is not lost. Every instance sees it through its cache.
     */
    private void storeDisabled(JobCoordinator job, boolean disabled) {
        if (jobs.registry() == null) {
            throw new IllegalStateException("Sharded jobs are not running");
        }
        if (job.updateDisabled(disabled)) {
            log.info("Job {}: {} by an operator", job.jobName(), disabled ? "disabled" : "enabled");
        }
    }
}
