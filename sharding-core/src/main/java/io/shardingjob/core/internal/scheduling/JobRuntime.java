package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerKeeper;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.InstanceRegistration;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
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
 * ledger for operators are {@link LedgerQueries}.
 */
public final class JobRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRuntime.class);

    private enum State {
        LATENT,
        STARTED,
        STOPPING,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final CuratorFramework client;

    private final JobConfiguration local;

    private final String instanceId;

    private final JobNodes nodes;

    private final ShardingStrategies strategies;

    private final ScheduledExecutorService scheduler;

    private final boolean ownsScheduler;

    private final SerialExecutor serial;

    private final Duration startTimeout;

    private final Duration reconcileInterval;

    private final JobCache cache;

    private final JobConfigurationService configurations;

    private final ShardingService sharding;

    private final LeaderElection election;

    private final InstanceRegistration registration;

    private final FireLedger ledger;

    private final LocalExecutions executions = new LocalExecutions();

    private final FireRunner fireRunner;

    private final LedgerAudit audit;

    private final Reconciler reconciler;

    private final LedgerQueries queries;

    private final ConnectionGuard connection;

    private final AssignmentWait assignmentWait;

    private final JobOperations operations;

    /** Null unless a completion listener was given: completing a fire costs reads. */
    private final @Nullable LedgerCompletions completions;

    private final @Nullable ItemExecutor job;

    private final Executor itemExecutor;

    private final Duration shutdownGracePeriod;

    /** The time of fires started without a fire time, and of claims. */
    private final Clock clock;

    /** Whether a delayed audit is already scheduled. */
    private final AtomicBoolean auditLaterScheduled = new AtomicBoolean();

    /** Whether an audit is already waiting on the serial executor. */
    private final AtomicBoolean auditQueued = new AtomicBoolean();

    /** Fires whose completion check is waiting on the serial executor. */
    private final Set<Instant> completionChecks = ConcurrentHashMap.newKeySet();

    /** The epoch of the assignment the last audit saw: a new one may have given this instance items to look after. */
    private volatile long auditedEpoch = -1;

    private @Nullable ScheduledFuture<?> reconcileTask;

    private final Duration shardingWaitTimeout;

    public JobRuntime(JobSettings settings) {
        this.client = settings.client();
        this.local = settings.configuration();
        this.instanceId = InstanceId.validate(settings.instanceId());
        this.nodes = new JobNodes(local.name());
        this.strategies = settings.strategies();
        this.ownsScheduler = settings.scheduler() == null;
        this.scheduler = ownsScheduler
                ? Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "sharding-" + local.name());
                    thread.setDaemon(true);
                    return thread;
                })
                : settings.scheduler();
        this.serial = new SerialExecutor(scheduler);
        this.startTimeout = settings.startTimeout();
        this.shardingWaitTimeout = settings.shardingWaitTimeout();
        this.reconcileInterval = settings.reconcileInterval();
        this.cache = new JobCache(client, nodes, serial);
        this.configurations = new JobConfigurationService(client, nodes, cache, local);
        this.election = new LeaderElection(client, nodes, instanceId, serial, this::leadershipChanged);
        this.sharding = new ShardingService(
                client, nodes, cache, configurations::effective, strategies::get, election::isLeader);
        this.registration = new InstanceRegistration(
                client,
                nodes,
                instanceId,
                () -> serial.execute(() -> requestReshardQuietly("instance " + instanceId + " registered")));
        this.ledger = new FireLedger(client, nodes);
        this.job = settings.job();
        this.itemExecutor = settings.itemExecutor();
        this.shutdownGracePeriod = settings.shutdownGracePeriod();
        this.clock = settings.clock();
        this.completions = settings.completionListener() == null
                ? null
                : new LedgerCompletions(ledger, local.name(), instanceId, settings.completionListener());
        this.fireRunner = new FireRunner(this, ledger, executions, settings.listener(), settings.fireListener());
        DueFires dueFires = new DueFires(ledger, settings.schedule(), this::configuration, executions::seenFires);
        this.audit = new LedgerAudit(
                this,
                ledger,
                fireRunner,
                executions,
                settings.job(),
                settings.itemExecutor(),
                settings.catchUpHorizon(),
                dueFires);
        this.reconciler = new Reconciler(
                this,
                election,
                sharding,
                new LedgerKeeper(ledger, completions, settings.ledgerRetention(), settings.catchUpHorizon(), dueFires),
                serial);
        this.queries = new LedgerQueries(ledger, cache, nodes, local.name());
        this.connection = new ConnectionGuard(
                this, client, nodes, executions, scheduler, serial, settings.interruptOnConnectionLoss());
        this.assignmentWait =
                new AssignmentWait(sharding, election, instanceId, settings.shardingWaitTimeout(), this::isAvailable);
        this.operations = new JobOperations(client, nodes, configurations, sharding, local.name(), instanceId);
    }

    /**
     * Stores or reads the shared configuration, registers this instance, joins the election and asks for a reshard.
     *
     * @throws JobConfigurationException when the job's strategy is unknown
     * @throws RegistryUnavailableException when ZooKeeper does not answer within the start timeout
     */
    public void start() {
        if (strategies.find(local.strategy()).isEmpty()) {
            throw new JobConfigurationException(
                    local.name(),
                    "strategy",
                    "unknown sharding strategy '" + local.strategy() + "'; known strategies: " + strategies.names());
        }
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("Job '" + local.name() + "' was already started");
        }
        try {
            operations.createStructure();
            configurations.publish();
            cache.addListener(this::registryChanged);
            cache.start(startTimeout);
            connection.start();
            registration.start(startTimeout);
            if (!cache.exists(nodes.disabledInstance(instanceId))) {
                election.join();
            }
            long interval = reconcileInterval.toMillis();
            reconcileTask = scheduler.scheduleWithFixedDelay(
                    () -> serial.execute(this::periodicCheck), interval, interval, TimeUnit.MILLISECONDS);
            log.info("Job {} started on instance {}", local.name(), instanceId);
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
     * running then and releases their claims to their next owner, and deletes this instance's registration at once.
     * Work that completed is recorded in the ledger before the registration goes, so it is never run again.
     */
    @Override
    public void close() {
        if (!state.compareAndSet(State.STARTED, State.STOPPING)) {
            if (state.getAndSet(State.CLOSED) == State.LATENT) {
                closeParts();
            }
            return;
        }
        signalChange();
        announceLeaving();
        if (!executions.awaitIdle(shutdownGracePeriod)) {
            log.warn(
                    "Job {}: items {} still running after the {} ms grace period; interrupting them and releasing"
                            + " their claims",
                    local.name(),
                    executions.runningItems(),
                    shutdownGracePeriod.toMillis());
            executions.abandonAll();
            executions.awaitIdle(Duration.ofSeconds(1));
        }
        if (client.getZookeeperClient().isConnected()) {
            fireRunner.writeOwed();
        }
        state.set(State.CLOSED);
        closeParts();
        log.info("Job {} closed on instance {}", local.name(), instanceId);
    }

    /**
     * A closing instance gives its items up at once rather than after the grace period: it stays registered (its
     * claims stay live and nobody takes over what it is finishing) but is left out of the next assignment, and it
     * hands leadership over.
     */
    private void announceLeaving() {
        try {
            client.create()
                    .withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
                    .forPath(nodes.leavingInstance(instanceId));
        } catch (KeeperException.NodeExistsException already) {
            // A previous close attempt announced it.
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not announce leaving; items move when the registration goes: {}",
                    local.name(),
                    ex.toString());
        }
        closeQuietly(election, "leader election");
    }

    private void closeParts() {
        if (reconcileTask != null) {
            reconcileTask.cancel(false);
        }
        connection.close();
        // Each step is attempted even if an earlier one fails (the client may already be closed).
        closeQuietly(election, "leader election");
        closeQuietly(registration, "registration");
        closeQuietly(cache, "cache");
        if (ownsScheduler) {
            scheduler.shutdownNow();
        }
        signalChange();
    }

    /** Runs one fire with the given job on the given executor, at the current time. */
    public FireReport fire(ItemExecutor job, Executor itemExecutor) {
        return fire(job, itemExecutor, ExecutionSource.NORMAL, clock.instant());
    }

    /** Runs one fire with the job and executor the runtime was built with. */
    public FireReport fire(ExecutionSource source, Instant fireTime) {
        if (job == null) {
            throw new IllegalStateException("Job '" + local.name() + "': no job was given to the builder");
        }
        return fire(job, itemExecutor, source, fireTime);
    }

    /**
     * Runs one fire: claims this instance's items of it in the ledger, runs those it won and waits for them.
     *
     * @param source {@link ExecutionSource#NORMAL} for a scheduled fire, {@link ExecutionSource#MANUAL} for one an
     *     operator asked for
     * @param fireTime the scheduled time of the fire: the ledger's key for it, recorded with every item
     */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant fireTime) {
        return fireRunner.fire(job, itemExecutor, source, fireTime);
    }

    public String instanceId() {
        return instanceId;
    }

    public String jobName() {
        return local.name();
    }

    /** The configuration every instance agrees on: the stored one. */
    public JobConfiguration configuration() {
        return configurations.effective();
    }

    public boolean isStarted() {
        return state.get() == State.STARTED;
    }

    /** Whether this instance can start items: started, not stopping, and connected. */
    public boolean isAvailable() {
        // Registered under the current session, too: a claim names its session, and a session without a registration
        // looks dead to every other instance's audit, which would take its claims over while it runs them. After a
        // fast restart under the same id, the old session's node is still there until it expires.
        long session = sessionId();
        return isStarted() && !connection.isSuspended() && session != 0 && registration.sessionId() == session;
    }

    /** The current ZooKeeper session of this instance's client: the session its claims name. */
    long sessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    Instant now() {
        return clock.instant();
    }

    /** See {@link LedgerQueries#openClaims()}. */
    public List<Claim> openClaims() {
        return queries.openClaims();
    }

    /** See {@link LedgerQueries#failoverOwners()}. */
    public Map<Integer, String> failoverOwners() {
        return queries.failoverOwners();
    }

    /** See {@link LedgerQueries#failoverQueue()}. */
    public List<Integer> failoverQueue() {
        return queries.failoverQueue();
    }

    /** See {@link LedgerQueries#runningItems()}. */
    public List<Integer> runningItems() {
        return queries.runningItems();
    }

    /** See {@link LedgerQueries#runningOwners()}. */
    public Map<Integer, String> runningOwners() {
        return queries.runningOwners();
    }

    public boolean isLeader() {
        return election.isLeader();
    }

    /** The leader's instance id, from the cache. */
    public Optional<String> leaderId() {
        return cache.data(nodes.leaderInstance()).map(data -> new String(data, StandardCharsets.UTF_8));
    }

    public Assignment assignment() {
        return sharding.currentAssignment();
    }

    /** This instance's items under the current assignment. */
    public List<Integer> localItems() {
        return assignment().itemsOf(instanceId);
    }

    public boolean isReshardPending() {
        return sharding.isReshardPending();
    }

    /** Every live instance of the job, sorted, disabled ones included. */
    public List<String> liveInstances() {
        return cache.children(nodes.instances());
    }

    public List<String> disabledInstances() {
        return cache.children(nodes.disabledInstances());
    }

    public List<Integer> disabledItems() {
        return cache.children(nodes.disabledItems()).stream()
                .map(Integer::valueOf)
                .sorted()
                .toList();
    }

    /** Asks the leader for a new assignment now. */
    public void requestReshard() {
        operations.requestReshard();
    }

    /** Disables an instance for this job: it leaves the election and gets no items. */
    public void disableInstance(String id) {
        operations.disableInstance(id);
    }

    public void enableInstance(String id) {
        operations.enableInstance(id);
    }

    /** Disables an item: its owner skips it until it is enabled again. */
    public void disableItem(int item) {
        operations.disableItem(item);
    }

    public void enableItem(int item) {
        operations.enableItem(item);
    }

    /** Stores a new count; every instance sees it and the leader reshards to it. */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        return operations.updateShardingTotalCount(shardingTotalCount);
    }

    /** See {@link JobConfigurationService#updateDisabled(boolean)}. */
    public boolean updateDisabled(boolean disabled) {
        return operations.updateDisabled(disabled);
    }

    /** The coordination scheduler, also used to time items out. */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * Where the group commit of claim writes drains: the coordination scheduler, on which nothing waits for a claim
     * write (fires and items run elsewhere), so a drain never waits behind a thread that waits for it.
     */
    Executor commitExecutor() {
        return scheduler;
    }

    /** Asks for an audit after a delay, once however often it is asked meanwhile. */
    void auditLater(Duration delay) {
        if (isStarted() && auditLaterScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(
                        () -> {
                            auditLaterScheduled.set(false);
                            requestAudit();
                        },
                        Math.max(1, delay.toMillis() + 50),
                        TimeUnit.MILLISECONDS);
            } catch (RuntimeException closing) {
                auditLaterScheduled.set(false);
            }
        }
    }

    /** Asks for an audit of this instance's items soon, once however often it is asked meanwhile. */
    void requestAudit() {
        if (isStarted() && auditQueued.compareAndSet(false, true)) {
            serial.execute(() -> {
                auditQueued.set(false);
                runAudit();
            });
        }
    }

    void runAudit() {
        try {
            auditedEpoch = assignment().epoch();
            audit.run();
        } catch (Exception ex) {
            log.warn("Job {}: audit failed, will retry: {}", local.name(), ex.toString());
        }
    }

    /** An item of the fire ended and its claim says so: when a completion listener is set, the fire may be complete. */
    void itemEnded(Instant fireTime) {
        if (completions != null && completionChecks.add(fireTime)) {
            serial.execute(() -> {
                completionChecks.remove(fireTime);
                try {
                    FireView view = ledger.read(List.of(fireTime)).get(0);
                    completions.completeIfSettled(view, sessionId(), null);
                } catch (Exception ex) {
                    log.debug("Job {}: completion check of {} failed: {}", local.name(), fireTime, ex.toString());
                }
            });
        }
    }

    /** How long a fire waits for a pending reshard, or for the audit of a new assignment. */
    Duration shardingWaitTimeout() {
        return shardingWaitTimeout;
    }

    /** See {@link AssignmentWait#await()}. */
    Assignment awaitSharding() {
        return assignmentWait.await();
    }

    private void registryChanged(@Nullable String path) {
        signalChange();
        if (!isStarted()) {
            return;
        }
        if ((nodes.assignment().equals(path) && assignment().epoch() != auditedEpoch)
                || (path != null && path.startsWith(nodes.instances() + "/") && !cache.exists(path))) {
            // A new assignment may give this instance items whose earlier fires were left undone, and an instance that
            // went away may have left claims of items this instance owns already.
            requestAudit();
        }
        if (nodes.disabledInstance(instanceId).equals(path)) {
            if (cache.exists(path)) {
                log.info("Job {}: instance {} disabled, leaving the election", local.name(), instanceId);
                election.leave();
            } else {
                log.info("Job {}: instance {} enabled, joining the election", local.name(), instanceId);
                election.join();
            }
        }
        reconciler.reconcileSoon();
    }

    private void leadershipChanged(boolean leader) {
        signalChange();
        if (leader) {
            serial.execute(reconciler::reconcile);
        }
    }

    private void periodicCheck() {
        connection.retryResume();
        reconcile();
        runAudit();
    }

    /** See {@link Reconciler#reconcile()}. */
    void reconcile() {
        reconciler.reconcile();
    }

    private void closeQuietly(AutoCloseable part, String what) {
        try {
            part.close();
        } catch (Exception ex) {
            log.warn("Job {}: closing the {} failed: {}", local.name(), what, ex.toString());
        }
    }

    private void requestReshardQuietly(String reason) {
        try {
            sharding.requestReshard(reason);
        } catch (RuntimeException ex) {
            log.warn("Job {}: could not request a reshard ({}); the leader's reconcile will", local.name(), reason, ex);
        }
    }

    /** See {@link ConnectionGuard#absentOwnersUndecidedFor(Instant)}. */
    Duration absentOwnersUndecidedFor(Instant now) {
        return connection.absentOwnersUndecidedFor(now);
    }

    /** Wakes fires waiting in {@link #awaitSharding()}: the registry, the connection or the lifecycle changed. */
    void signalChange() {
        assignmentWait.signal();
    }
}
