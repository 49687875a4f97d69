package io.shardingjob.core;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.scheduling.JobRuntime;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * One job on one instance: registration, election, resharding and fires through the fire ledger, with an explicit
 * {@code start()/close()} lifecycle. This is the class a program without Spring uses; the starter creates one per
 * {@code @ShardedJob}.
 *
 * <p>Who runs an item of a fire is decided by the ledger alone: a fire claims this instance's items (one create per
 * item, in one multi-operation), and an item whose claim another run holds is not run here. What was left undone is
 * found by the ledger audit of the item's current owner, which takes over claims whose session is gone and makes up
 * fires nobody claimed, as the misfire policy says.
 *
 * <p>Connection state is handled in one place: SUSPENDED starts no item and interrupts running ones a third of a
 * session timeout later (LOST at once); RECONNECTED registers again, writes owed claims and audits (docs/ledger.md).
 *
 * <p>Race window: an item that ignores interrupts keeps running after its session expired while another instance runs
 * it again; its claim's fencing token, lower than the new owner's, lets a store refuse its writes.
 */
public final class JobCoordinator implements AutoCloseable {

    private final JobRuntime runtime;
    private final LedgerView ledger;

    JobCoordinator(JobRuntime runtime) {
        this.runtime = runtime;
        this.ledger = new LedgerView(runtime.ledgerQueries());
    }

    /** A coordinator of the given job through the given client, with the other settings at their defaults. */
    public static JobCoordinatorBuilder builder(CuratorFramework client, JobConfiguration configuration) {
        return new JobCoordinatorBuilder(client, configuration);
    }

    /**
     * Stores or reads the shared configuration, registers this instance, joins the election and asks for a reshard.
     *
     * @throws JobConfigurationException when the job's strategy is unknown
     * @throws RegistryUnavailableException when ZooKeeper does not answer within the start timeout
     */
    public void start() {
        runtime.start();
    }

    /**
     * Leaves cleanly: stops starting items and announces it (the next assignment leaves it out), lets running items
     * finish within the shutdown grace period, interrupts those still running then, and waits until every one returned
     * (its claim passing to its next owner) before it deletes this instance's registration: however long an item
     * ignores its interrupt, nobody else starts it meanwhile. Completed work is recorded in the ledger first, so it is
     * never run again. A call while another thread closes the job returns once that close is done.
     */
    @Override
    public void close() {
        runtime.close();
    }

    /** Runs one fire with the given job on the given executor, at the current time. */
    public FireReport fire(ItemExecutor job, Executor itemExecutor) {
        return runtime.fires().fire(job, itemExecutor);
    }

    /** Runs one fire with every item on the calling thread, one after another. */
    public FireReport fire(ItemExecutor job) {
        return fire(job, Runnable::run);
    }

    /** Runs one fire with the job and executor given to the builder. */
    public FireReport fire(ExecutionSource source, Instant fireTime) {
        return runtime.fires().fire(source, fireTime);
    }

    /**
     * Starts one fire with the job and executor given to the builder, without waiting for its items: the calling thread
     * is free once this instance's items are claimed and handed to the executor, or at once when the fire must first
     * wait for a reshard or an audit (then planned on the job's hand-off thread). The report completes once every
     * item's end is recorded in the ledger.
     */
    public CompletableFuture<FireReport> fireAsync(ExecutionSource source, Instant fireTime) {
        return runtime.fires().fireAsync(source, fireTime);
    }

    /**
     * Fires the job now on every instance: records a manual fire with its job parameter in the ledger and announces it;
     * each instance starts its items of it at once ({@link JobCoordinatorBuilder#manualFireHandler}), each item runs
     * once as {@link ExecutionSource#MANUAL}, and a dead, cut-off or stopping owner's items are taken over or made up,
     * same parameter.
     *
     * @param jobParameter what every item of the fire gets as {@link ShardingContext#jobParameter()}; null: the job's
     * @return the fire's time, every run's {@link ShardingContext#fireTime()}
     * @throws io.shardingjob.core.operation.InvalidOperationException naming the job and {@code jobParameter} when it
     *     takes more than {@link JobConfiguration#MAX_JOB_PARAMETER_BYTES} in UTF-8: nothing is recorded
     * @throws IllegalStateException when the job is not started here, or is disabled
     * @throws RegistryUnavailableException when ZooKeeper did not record the fire
     */
    public Instant trigger(@Nullable String jobParameter) {
        return runtime.operations().trigger(jobParameter);
    }

    /**
     * Runs again the failed items of one past fire, as that fire's runs: their claims in the ledger are reopened (each
     * at the version read, so of two operators asking at once one reopens them) and announced; each item's current
     * owner runs it once more with the fire's time, job parameter and context, as {@link ExecutionSource#RETRY}, with
     * its retries counted afresh. The items that did not fail are not run again.
     *
     * @param fireTime the fire's time, as {@link LedgerView} and every run's {@link ShardingContext#fireTime()} show it
     * @return the items reopened, in order
     * @throws io.shardingjob.core.operation.InvalidOperationException when the fire is still to come, no longer in the
     *     ledger (retired after {@link JobCoordinatorBuilder#ledgerRetention}), or has no failed item
     * @throws IllegalStateException when the job is not started here or is disabled, or when none of the fire's items
     *     failed and some still run or wait to run (a re-run of it under way)
     * @throws RegistryUnavailableException when ZooKeeper did not answer
     */
    public List<Integer> rerunFailed(Instant fireTime) {
        return runtime.operations().rerunFailed(fireTime);
    }

    /** Runs one fire: claims this instance's items of it in the ledger (keyed by its time), runs and awaits them. */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant fireTime) {
        return runtime.fires().fire(job, itemExecutor, source, fireTime);
    }

    public String instanceId() {
        return runtime.state().instanceId();
    }

    public String jobName() {
        return runtime.state().jobName();
    }

    /** The configuration every instance agrees on: the stored one. */
    public JobConfiguration configuration() {
        return runtime.state().configuration();
    }

    public boolean isStarted() {
        return runtime.isStarted();
    }

    /** Whether this instance can start items: started, not stopping, and connected. */
    public boolean isAvailable() {
        return runtime.state().isAvailable();
    }

    public boolean isLeader() {
        return runtime.state().isLeader();
    }

    /** The leader's instance id, from the cache. */
    public Optional<String> leaderId() {
        return runtime.state().leaderId();
    }

    public Assignment assignment() {
        return runtime.state().assignment();
    }

    /** This instance's items under the current assignment. */
    public List<Integer> localItems() {
        return runtime.state().localItems();
    }

    public boolean isReshardPending() {
        return runtime.state().isReshardPending();
    }

    /** Every live instance of the job, sorted, disabled ones included. */
    public List<String> liveInstances() {
        return runtime.state().liveInstances();
    }

    public List<String> disabledInstances() {
        return runtime.state().disabledInstances();
    }

    public List<Integer> disabledItems() {
        return runtime.state().disabledItems();
    }

    /** What the job costs ZooKeeper (its ledger's size and writes) against {@code jute.maxbuffer}; at no request. */
    public CoordinationBudget budget() {
        return runtime.budget();
    }

    /** What the fire ledger holds now, across the cluster: running items, take-overs, orphans, recent fires. */
    public LedgerView ledger() {
        return ledger;
    }

    /**
     * Takes no items from now on, staying connected and registered (its application is not ready): the next reshard
     * leaves it out, so its items move to the others, each started there once its run here returned. A leader keeps
     * leading: its work needs ZooKeeper, not the application, and handing it over would cost an election each time.
     * Called before {@link #start()}, the job registers standing by. Nothing happens while it closes. The mark is
     * written in the background after those of the calls before: thousands of jobs send theirs together, and an
     * outage holds no caller.
     *
     * @return completes once the mark is written (at once before the start), exceptionally when that failed (logged)
     */
    public CompletionStage<Void> standBy() {
        return runtime.leavingMark().standBy();
    }

    /**
     * Takes items again from the next reshard on, after {@link #standBy()}; nothing happens while it closes. The stage
     * completes once the mark is withdrawn, exceptionally when that failed (logged).
     */
    public CompletionStage<Void> resume() {
        return runtime.leavingMark().resume();
    }

    /** The live instances standing by ({@link #standBy()}) or closing, as cached: the next reshard leaves them out. */
    public List<String> leavingInstances() {
        return runtime.state().leavingInstances();
    }

    /** Whether {@link #standBy()} holds: this instance takes no items until {@link #resume()}. */
    public boolean isStandingBy() {
        return runtime.leavingMark().isStandingBy();
    }

    /** Asks the leader for a new assignment now. */
    public void requestReshard() {
        runtime.operations().requestReshard();
    }

    /**
     * Disables an instance for this job: it leaves the election and gets no items; it need not be registered now.
     *
     * @throws io.shardingjob.core.operation.InvalidOperationException naming the job and {@code instanceId} when the id
     *     is missing, malformed or longer than 255 characters: nothing is written
     */
    public void disableInstance(String id) {
        runtime.operations().disableInstance(id);
    }

    /** @throws io.shardingjob.core.operation.InvalidOperationException as {@link #disableInstance} does */
    public void enableInstance(String id) {
        runtime.operations().enableInstance(id);
    }

    /**
     * Disables an item: its owner skips it until it is enabled again.
     *
     * @throws io.shardingjob.core.operation.InvalidOperationException naming the job and {@code item} when it is
     *     outside {@code 0..shardingTotalCount-1} of the count in force: nothing is written
     */
    public void disableItem(int item) {
        runtime.operations().disableItem(item);
    }

    /** @throws io.shardingjob.core.operation.InvalidOperationException as {@link #disableItem} does */
    public void enableItem(int item) {
        runtime.operations().enableItem(item);
    }

    /**
     * Stores a new count; every instance sees it and the leader reshards to it.
     *
     * @throws io.shardingjob.core.operation.InvalidOperationException naming the job and {@code shardingTotalCount}
     *     when it is outside {@code 1..}{@link JobConfiguration#MAX_SHARDING_TOTAL_COUNT}: nothing is written
     */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        return runtime.operations().updateShardingTotalCount(shardingTotalCount);
    }

    /**
     * Stores the job's {@code disabled} flag at the version read (a concurrent change of another property is not lost);
     * every instance runs nothing while it is set.
     *
     * @return whether the stored flag changed; false when it already had that value
     * @throws RegistryUnavailableException when ZooKeeper could not be read or written
     * @throws IllegalStateException when the stored configuration kept changing
     */
    public boolean updateDisabled(boolean disabled) {
        return runtime.operations().updateDisabled(disabled);
    }
}
