package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.scheduling.audit.LedgerAudit;
import io.shardingjob.core.internal.scheduling.fire.CallingThread;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import io.shardingjob.core.internal.scheduling.session.ReconcilePhase;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one job does on one instance, behind the public {@code JobCoordinator}: registration, election,
 * resharding and fires through the fire ledger, with an explicit {@code start()/close()} lifecycle
 * ({@code LATENT -> STARTED -> STOPPING -> CLOSED}).
 *
 * <p>Who runs an item of a fire is decided by the ledger alone: a fire claims this instance's items (one create per
 * item, in one multi-operation), and an item whose claim another run holds is not run here. What was left undone is
 * found by the {@link LedgerAudit} of the item's current owner, which takes over claims whose session is gone and makes
 * up fires nobody claimed, as the misfire policy says.
 *
 * <p>Connection state is handled by this runtime's {@link ConnectionGuard} and only there; the read-only views of the
 * ledger for operators are {@link LedgerQueries}. The parts are built, started and closed in {@link JobParts}; this
 * class keeps the lifecycle's state and what the job does with them.
 */
public final class JobRuntime implements JobView, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRuntime.class);

    private enum State {
        LATENT,
        STARTED,
        STOPPING,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    /** Open until the first close is done. */
    private final CountDownLatch closed = new CountDownLatch(1);

    private final JobSettings settings;

    private final JobParts parts;

    private @Nullable ScheduledFuture<?> reconcileTask;

    /**
     * Whether a periodic check waits on the job's loop: while ZooKeeper is slow to answer the one running, the timer
     * adds no more behind it.
     */
    private final AtomicBoolean periodicCheckQueued = new AtomicBoolean();

    public JobRuntime(JobSettings settings) {
        this.settings = settings;
        this.parts = JobParts.wire(this, settings);
    }

    /**
     * Stores or reads the shared configuration, registers this instance, joins the election and asks for a reshard.
     *
     * @throws JobConfigurationException when the job's strategy is unknown
     * @throws RegistryUnavailableException when ZooKeeper does not answer within the start timeout
     */
    public void start() {
        JobConfiguration local = settings.configuration();
        ShardingStrategies strategies = settings.strategies();
        if (strategies.find(local.strategy()).isEmpty()) {
            throw new JobConfigurationException(
                    local.name(),
                    "strategy",
                    "unknown sharding strategy '" + local.strategy() + "'; known strategies: " + strategies.names());
        }
        if (settings.job() != null && CallingThread.runsTasksOnTheCallingThread(settings.itemExecutor())) {
            throw new IllegalArgumentException("Job '" + local.name() + "': the itemExecutor given to the builder"
                    + " (job(code, itemExecutor)) runs tasks on the calling thread, as Runnable::run does. Make-ups,"
                    + " take-overs and manual fires are handed to it from the job's one hand-off thread, so they would"
                    + " all run there, one after another, and hold up every later hand-off of the job. Give it an"
                    + " executor with threads of its own, such as Executors.newFixedThreadPool(n)");
        }
        if (settings.client().compressionEnabled()) {
            throw new IllegalArgumentException("Job '" + local.name() + "': the Curator client given to the builder"
                    + " compresses every node it writes and decompresses every node it reads"
                    + " (CuratorFrameworkFactory.Builder.enableCompression()). The fire ledger writes and reads its"
                    + " nodes raw, in multi-operations Curator does not compress, so Curator's caches and latches"
                    + " could not read them: manual fires would wait for the audits, and jobs that follow jobs would"
                    + " never run. Build the client without enableCompression(); a compression provider alone is"
                    + " fine, as it compresses only the writes that ask for it");
        }
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("Job '" + local.name() + "' was already started");
        }
        try {
            parts.start(settings.startTimeout());
            long interval = settings.reconcileInterval().toMillis();
            // Every job of this instance checks at the same instants, so that their requests go together.
            long first = ReconcilePhase.delayToNext(settings.clock().millis(), interval, instanceId());
            reconcileTask = parts.scheduler()
                    .scheduleAtFixedRate(this::queuePeriodicCheck, first, interval, TimeUnit.MILLISECONDS);
            log.info("Job {} started on instance {}", local.name(), instanceId());
        } catch (RuntimeException ex) {
            close();
            throw ex;
        } catch (Exception ex) {
            close();
            throw new RegistryUnavailableException("Job '" + local.name() + "' could not start", ex);
        }
    }

    /**
     * Leaves cleanly: stops starting items and announces it (so the next assignment leaves it out and its items of
     * later fires run elsewhere), lets running items finish within the shutdown grace period, interrupts the ones still
     * running then and waits until they returned (each one's claim is released to its next owner as it returns), and
     * then deletes this instance's registration, and after it the leaving mark. Work that completed is recorded in the
     * ledger before the registration goes, so it is never run again; a run that is still alive keeps the registration,
     * so nobody else starts it. Without a connection by then, the close waits for it as long as the session lasts
     * (other jobs of the client keep it): a registration left to a session that lives on would stay for good.
     *
     * <p>A close called while another thread closes the job returns only once that close is done: whoever closes the
     * client after it must not end the session under runs the first close still waits for.
     */
    @Override
    public void close() {
        if (state.compareAndSet(State.LATENT, State.CLOSED)) {
            try {
                closeParts();
            } finally {
                closed.countDown();
            }
            return;
        }
        if (!state.compareAndSet(State.STARTED, State.STOPPING)) {
            awaitClosed();
            return;
        }
        try {
            signalChange();
            parts.gracefulClose().run();
            state.set(State.CLOSED);
            if (closeParts()) {
                parts.gracefulClose().withdrawLeaving();
            }
            log.info("Job {} closed on instance {}", jobName(), instanceId());
        } finally {
            closed.countDown();
        }
    }

    /** Waits for the close under way on another thread; an interrupt is kept for the caller, not obeyed. */
    private void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                closed.await();
                break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the registration was deleted while its session lives on: the leaving mark must go after it. */
    private boolean closeParts() {
        if (reconcileTask != null) {
            reconcileTask.cancel(false);
        }
        boolean deregistered = parts.close();
        signalChange();
        return deregistered;
    }

    /** Runs one fire with the given job on the given executor, at the current time. */
    public FireReport fire(ItemExecutor job, Executor itemExecutor) {
        return fire(job, itemExecutor, ExecutionSource.NORMAL, now());
    }

    /** Runs one fire with the job and executor the runtime was built with. */
    public FireReport fire(ExecutionSource source, Instant fireTime) {
        return fire(builtJob(), settings.itemExecutor(), source, fireTime);
    }

    /** Starts one fire with the job and executor the runtime was built with; see {@link FireRunner#fireAsync}. */
    public CompletableFuture<FireReport> fireAsync(ExecutionSource source, Instant fireTime) {
        return parts.fireRunner()
                .fireAsync(builtJob(), settings.itemExecutor(), source, FireSchedule.fireTimeOf(fireTime));
    }

    /**
     * See {@link ManualFires#trigger}; refused with an {@link io.shardingjob.core.operation.InvalidOperationException}
     * when the parameter is too large for the ledger, an {@link IllegalStateException} when not started, or disabled.
     */
    public Instant trigger(@Nullable String jobParameter) {
        OperatorInputs.jobParameter(jobName(), jobParameter);
        if (!isStarted()) {
            throw new IllegalStateException("Job '" + jobName() + "' is not running on this instance");
        }
        if (configuration().disabled()) {
            throw new IllegalStateException("Job '" + jobName() + "' is disabled: enable it to fire it");
        }
        return parts.manualFires().trigger(jobParameter);
    }

    /**
     * See {@link io.shardingjob.core.internal.scheduling.audit.Reruns#rerunFailed}: the failed items of a past fire
     * reopened, for their owners to run again as that fire's runs.
     */
    public List<Integer> rerunFailed(Instant fireTime) {
        return parts.reruns().rerunFailed(FireSchedule.fireTimeOf(fireTime));
    }

    private ItemExecutor builtJob() {
        ItemExecutor job = settings.job();
        if (job == null) {
            throw new IllegalStateException("Job '" + jobName() + "': no job was given to the builder");
        }
        return job;
    }

    /**
     * Runs one fire: claims this instance's items of it in the ledger, runs those it won and waits for them. Given an
     * executor that runs tasks on the calling thread ({@code Runnable::run}), the items run on the calling thread, one
     * after another, while it waits: never on the thread that happened to complete the fire's claims (see {@link
     * CallingThread}).
     *
     * @param source {@link ExecutionSource#NORMAL} for a scheduled fire, {@link ExecutionSource#MANUAL} for one an
     *     operator asked for
     * @param scheduled the scheduled time of the fire; to the millisecond, the ledger's key for it, recorded with every
     *     item
     */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant scheduled) {
        Instant fireTime = FireSchedule.fireTimeOf(scheduled);
        if (CallingThread.runsTasksOnTheCallingThread(itemExecutor)) {
            CallingThread caller = new CallingThread();
            return caller.runUntil(parts.fireRunner().fireAsync(job, caller, source, fireTime));
        }
        return parts.fireRunner().fire(job, itemExecutor, source, fireTime);
    }

    @Override
    public String instanceId() {
        return parts.instanceId();
    }

    @Override
    public String jobName() {
        return settings.configuration().name();
    }

    /** The configuration every instance agrees on: the stored one. */
    @Override
    public JobConfiguration configuration() {
        return parts.configurations().effective();
    }

    @Override
    public boolean isStarted() {
        return state.get() == State.STARTED;
    }

    /** Whether this instance can start items: started, not stopping, connected, and registered in its session. */
    @Override
    public boolean isAvailable() {
        // Registered under the current session, too: a claim names its session, and a session without a registration
        // looks dead to every other instance's audit, which would take its claims over while it runs them. After a
        // fast restart under the same id, the old session's node is still there until it expires.
        long session = sessionId();
        return isStarted()
                && !parts.connection().isSuspended()
                && session != 0
                && parts.registration().sessionId() == session;
    }

    /** The current ZooKeeper session of this instance's client: the session its claims name. */
    @Override
    public long sessionId() {
        try {
            return parts.client().getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    /** The time of fires started without a fire time, and of claims. */
    @Override
    public Instant now() {
        return settings.clock().instant();
    }

    /** The read-only views of the ledger for operators. */
    public LedgerQueries ledgerQueries() {
        return parts.queries();
    }

    public boolean isLeader() {
        return parts.election().isLeader();
    }

    /** The leader's instance id, from the cache. */
    public Optional<String> leaderId() {
        return parts.cache().data(parts.nodes().leaderInstance()).map(data -> new String(data, StandardCharsets.UTF_8));
    }

    @Override
    public Assignment assignment() {
        return parts.sharding().currentAssignment();
    }

    /** The assignment in force, from the cache, with its node's version. */
    @Override
    public ShardingService.Versioned versionedAssignment() {
        return parts.sharding().currentVersioned();
    }

    /** The assignment in force and its node's version, read from ZooKeeper. */
    @Override
    public ShardingService.Versioned readVersionedAssignment() {
        return parts.sharding().readVersioned();
    }

    /** This instance's items under the current assignment. */
    public List<Integer> localItems() {
        return assignment().itemsOf(instanceId());
    }

    public boolean isReshardPending() {
        return parts.sharding().isReshardPending();
    }

    /** Every live instance of the job, sorted, disabled ones included. */
    public List<String> liveInstances() {
        return parts.cache().children(parts.nodes().instances());
    }

    @Override
    public List<String> disabledInstances() {
        return parts.cache().children(parts.nodes().disabledInstances());
    }

    @Override
    public List<Integer> disabledItems() {
        return parts.cache().children(parts.nodes().disabledItems()).stream()
                .map(Integer::valueOf)
                .sorted()
                .toList();
    }

    /** Asks the leader for a new assignment now. */
    public void requestReshard() {
        parts.operations().requestReshard();
    }

    /** Disables an instance for this job: it leaves the election and gets no items. */
    public void disableInstance(String id) {
        parts.operations().disableInstance(id);
    }

    public void enableInstance(String id) {
        parts.operations().enableInstance(id);
    }

    /** Disables an item: its owner skips it until it is enabled again. */
    public void disableItem(int item) {
        parts.operations().disableItem(item);
    }

    public void enableItem(int item) {
        parts.operations().enableItem(item);
    }

    /** Stores a new count; every instance sees it and the leader reshards to it. */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        return parts.operations().updateShardingTotalCount(shardingTotalCount);
    }

    /** See {@link JobConfigurationService#updateDisabled(boolean)}. */
    public boolean updateDisabled(boolean disabled) {
        return parts.operations().updateDisabled(disabled);
    }

    /** The new leader reconciles at once rather than at the next periodic check. */
    void leadershipChanged(boolean leader) {
        signalChange();
        if (leader) {
            parts.serial().submit(parts.reconciler()::reconcile);
        }
    }

    private void queuePeriodicCheck() {
        if (periodicCheckQueued.compareAndSet(false, true)) {
            parts.serial().submit(() -> {
                periodicCheckQueued.set(false);
                return periodicCheck();
            });
        }
    }

    private CompletableFuture<Void> periodicCheck() {
        return parts.connection()
                .retryResume()
                .thenCompose(resumed -> parts.reconciler().reconcile())
                // On the leader the audit starts from the ledger as the keeper just left it: one read less per pass.
                .thenCompose(kept -> parts.audits()
                        .run(kept.orElse(null))
                        // A pass that kept the ledger (this instance leads) and left more fires than it takes: the
                        // next follows now, or the ledger of a job fired faster than that grows.
                        .thenApply(audited ->
                                kept.isPresent() && parts.reconciler().keeperIsBehind()))
                .thenAccept(behind -> {
                    if (behind) {
                        queuePeriodicCheck();
                    }
                });
    }

    /** See {@link ConnectionGuard#absentOwnersUndecidedFor(Instant)}. */
    @Override
    public Duration absentOwnersUndecidedFor(Instant now) {
        return parts.connection().absentOwnersUndecidedFor(now);
    }

    /** Wakes fires waiting for an assignment: the registry, the connection or the lifecycle changed. */
    private void signalChange() {
        parts.assignmentWait().signal();
    }
}
