package io.shardingjob.boot;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.StoredJobs;
import io.shardingjob.core.registry.ClockSkew;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an operator can see and do with the sharded jobs of this application; the {@code sharding} Actuator endpoint is
 * a thin layer over it. Reads come from the local cache of the registry. Operations on a job name that does not exist
 * throw {@link NoSuchElementException}; an input the core's operations refuse (an item outside the job's items, a
 * malformed instance id, a job parameter larger than
 * {@link io.shardingjob.core.config.JobConfiguration#MAX_JOB_PARAMETER_BYTES}) throws
 * {@link io.shardingjob.core.operation.InvalidOperationException}, an {@link IllegalArgumentException}, before anything
 * is written.
 */
public interface ShardingOperations {

    /** This instance's id in the registry. */
    String instanceId();

    /** Whether this instance has a live ZooKeeper connection. */
    boolean isConnected();

    /**
     * How far this instance's wall clock is from ZooKeeper's, as last measured (on connecting, then at most once a minute
     * while asked), with the bound {@code sharding.zookeeper.max-clock-skew}; empty until measured.
     */
    default Optional<ClockSkew> clockSkew() {
        return Optional.empty();
    }

    /** Every started job of this application, in start order. */
    List<JobCoordinator> jobs();

    Optional<JobCoordinator> job(String name);

    /**
     * The jobs that follow each job, by its name, sorted ({@link StoredJobs#followers}), as far as this instance knows
     * them: the jobs stored in the namespace (read from ZooKeeper at each call, whichever service declared or defined
     * them) and this application's jobs as they run here. Only this application's jobs while ZooKeeper cannot be
     * reached. A job no job follows has no entry.
     */
    default Map<String, List<String>> followers() {
        return StoredJobs.followers(
                jobs().stream().map(JobCoordinator::configuration).toList());
    }

    /**
     * When this instance's schedule fires the job next: the time its trigger computed from the cron and time zone in
     * force, so a cron changed in ZooKeeper shows once the schedule followed it. While a fire is being handed off (a
     * moment) it is that fire's time. Empty when the job is no longer scheduled here (it is stopping) or its cron never
     * fires again.
     */
    Optional<Instant> nextFireTime(String name);

    /** The most recent item executions of a job on this instance, newest first. */
    List<ExecutionRecord> recentExecutions(String name);

    /**
     * A page of the job's executions, newest first: from the database when {@code sharding.execution.jdbc-log.enabled}
     * is on (every instance's, surviving restarts), otherwise this instance's recent ones from memory.
     *
     * @throws IllegalArgumentException when the page is negative or the size below 1
     * @throws IllegalStateException when the database does not answer
     */
    ExecutionPage executions(String name, int page, int size);

    /**
     * The alerts raised on this instance (failed items and fires, missed and overrun fires), newest first, at most
     * {@code sharding.alerts.history-size} of them, from memory; empty unless {@code sharding.alerts.enabled} is on.
     */
    List<ShardedJobAlert> recentAlerts();

    /**
     * Fires the job now on every instance, in the background, with the job's configured parameter: see
     * {@link #trigger(String, String)}.
     *
     * @return {@code false} when the job no longer runs on this instance (it is stopping), so nothing was fired
     */
    default boolean trigger(String name) {
        return trigger(name, null).isPresent();
    }

    /**
     * Fires the job now on every instance, in the background: one manual fire of every item, recorded in the fire
     * ledger with its job parameter ({@link JobCoordinator#trigger}). Each instance runs its own items of it at once,
     * through the same path as its scheduled fires (pools, listeners, observations, metrics), with source
     * {@code MANUAL}; the items of an instance that is down, cut off or stopping are taken over or made up by another,
     * with the same parameter. An item still running from an earlier fire runs for this one when it ends.
     *
     * @param jobParameter what every item of the fire gets as its job parameter; {@code null} for the configured one
     * @return the fire's time (every run's fire time), or empty when the job no longer runs on this instance (it is
     *     stopping), so nothing was fired
     * @throws io.shardingjob.core.operation.InvalidOperationException when the job parameter takes more than
     *     {@link io.shardingjob.core.config.JobConfiguration#MAX_JOB_PARAMETER_BYTES} in UTF-8: nothing is recorded
     * @throws IllegalStateException when the job is disabled
     * @throws io.shardingjob.core.registry.RegistryUnavailableException when ZooKeeper did not record the fire
     */
    Optional<Instant> trigger(String name, @Nullable String jobParameter);

    /**
     * Runs again the failed items of one past fire, in the background, as that fire's runs
     * ({@link JobCoordinator#rerunFailed}): their claims in the fire ledger are reopened and each item's current owner
     * runs it once more with the fire's time and job parameter, source {@code RETRY}, through the same path as its
     * other runs (pools, listeners, observations, metrics). The items that did not fail are not run again.
     *
     * @param fireTime the fire's time, as the fire history shows it
     * @return the items reopened, in order
     * @throws io.shardingjob.core.operation.InvalidOperationException when the fire is still to come, no longer in the
     *     ledger (retired after its retention), or has no failed item: nothing is reopened
     * @throws IllegalStateException when the job is disabled or stopping here, or when no item of the fire failed and
     *     some still run (a re-run of it under way)
     * @throws io.shardingjob.core.registry.RegistryUnavailableException when ZooKeeper did not answer
     */
    List<Integer> rerunFailed(String name, Instant fireTime);

    /** Asks the leader for a new assignment now. */
    void reshard(String name);

    /** Pauses the job on every instance: it keeps its assignment but runs nothing until enabled. */
    void disable(String name);

    void enable(String name);

    void disableItem(String name, int item);

    void enableItem(String name, int item);

    /** Takes an instance out of the job's assignment (and election); its items move to the others. */
    void disableInstance(String name, String instanceId);

    void enableInstance(String name, String instanceId);
}
