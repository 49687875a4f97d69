package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.config.JobConfigurationService;
import io.shardingjob.core.election.LeaderElection;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.instance.InstanceRegistration;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimState;
import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.internal.ledger.LedgerCompletions;
import io.shardingjob.core.internal.ledger.LedgerKeeper;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.registry.JobCache;
import io.shardingjob.core.registry.JobNodes;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.ShardingService;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job on one instance: registration, election, resharding and fires through the fire ledger, with an explicit
 * {@code start()/close()} lifecycle. This is the class a program without Spring uses; the starter creates one per
 * {@code @ShardedJob}.
 *
 * <p>Who runs an item of a fire is decided by the ledger alone: a fire claims this instance's items (one create per
 * item, in one multi-operation), and an item whose claim another run holds is not run here. What was left undone is
 * found by the {@link LedgerAudit} of the item's current owner, which takes over claims whose session is gone and makes
 * up fires nobody claimed, as the misfire policy says.
 *
 * <p>Connection state is handled here and only here:
 *
 * <ul>
 *   <li>SUSPENDED: no new item starts; running items are interrupted a third of a session timeout later, before the
 *       session can expire and another instance take them over;
 *   <li>LOST: the session, and with it every claim this instance holds, is gone: running items are interrupted now;
 *   <li>RECONNECTED: the registration is re-created under the new session once the old session's node is gone (see
 *       {@link InstanceRegistration}; each creation raises the reshard flag, so this instance gets items again), the
 *       assignment is re-read from ZooKeeper, owed claim writes are made, and an audit runs before fires start again.
 * </ul>
 *
 * Race window: an item that ignores interrupts keeps running after its session expired while another instance runs
 * it again; its claim's fencing token, lower than the new owner's, lets a store refuse its writes.
 */
public final class JobCoordinator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobCoordinator.class);

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

    private final Duration shardingWaitTimeout;

    private final JobCache cache;

    private final JobConfigurationService configurations;

    private final ShardingService sharding;

    private final LeaderElection election;

    private final InstanceRegistration registration;

    private final FireLedger ledger;

    private final LocalExecutions executions = new LocalExecutions();

    private final FireRunner fireRunner;

    private final LedgerAudit audit;

    private final LedgerKeeper keeper;

    /** Null unless a completion listener was given: completing a fire costs reads. */
    private final LedgerCompletions completions;

    private final ItemExecutor job;

    private final Executor itemExecutor;

    private final Duration shutdownGracePeriod;

    private final boolean interruptOnConnectionLoss;

    /** The time of fires started without a fire time, and of claims. */
    private final Clock clock;

    private volatile ScheduledFuture<?> pendingInterrupt;

    /** Whether an audit is already waiting on the serial executor. */
    private final AtomicBoolean auditQueued = new AtomicBoolean();

    /** Whether a reconcile is already waiting on the serial executor. */
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();

    /** Fires whose completion check is waiting on the serial executor. */
    private final Set<Instant> completionChecks = ConcurrentHashMap.newKeySet();

    /** The epoch of the assignment the last audit saw: a new one may have given this instance items to look after. */
    private volatile long auditedEpoch = -1;

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    private final ConnectionStateListener connectionListener = this::connectionStateChanged;

    private volatile boolean suspended;

    private ScheduledFuture<?> reconcileTask;

    private JobCoordinator(Builder builder) {
        this.client = builder.client;
        this.local = builder.configuration;
        this.instanceId = InstanceId.validate(builder.instanceId);
        this.nodes = new JobNodes(local.name());
        this.strategies = builder.strategies;
        this.ownsScheduler = builder.scheduler == null;
        this.scheduler = ownsScheduler
                ? Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "sharding-" + local.name());
                    thread.setDaemon(true);
                    return thread;
                })
                : builder.scheduler;
        this.serial = new SerialExecutor(scheduler);
        this.startTimeout = builder.startTimeout;
        this.reconcileInterval = builder.reconcileInterval;
        this.shardingWaitTimeout = builder.shardingWaitTimeout;
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
        this.job = builder.job;
        this.itemExecutor = builder.itemExecutor;
        this.shutdownGracePeriod = builder.shutdownGracePeriod;
        this.interruptOnConnectionLoss = builder.interruptOnConnectionLoss;
        this.clock = builder.clock;
        this.completions = builder.completionListener == null
                ? null
                : new LedgerCompletions(ledger, local.name(), instanceId, builder.completionListener);
        this.fireRunner = new FireRunner(this, ledger, executions, builder.listener, builder.fireListener);
        this.audit = new LedgerAudit(
                this, ledger, fireRunner, executions, builder.job, builder.itemExecutor, builder.catchUpHorizon);
        this.keeper = new LedgerKeeper(ledger, completions, builder.ledgerRetention, builder.catchUpHorizon);
    }

    public static Builder builder(CuratorFramework client, JobConfiguration configuration) {
        return new Builder(client, configuration);
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
            createStructure();
            configurations.publish();
            cache.addListener(this::registryChanged);
            cache.start(startTimeout);
            client.getConnectionStateListenable().addListener(connectionListener);
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
        cancelPendingInterrupt();
        client.getConnectionStateListenable().removeListener(connectionListener);
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

    /** Runs one fire with every item on the calling thread, one after another. */
    public FireReport fire(ItemExecutor job) {
        return fire(job, Runnable::run);
    }

    /** Runs one fire with the job and executor given to the builder. */
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
        return isStarted() && !suspended;
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

    /**
     * What the ledger holds for the fires that are not settled yet: claims running, orphaned or taken over. Read from
     * ZooKeeper (a few requests), for operators; fires never read it.
     */
    public List<Claim> openClaims() {
        try {
            Instant watermark = ledger.watermark();
            List<Instant> recent = ledger.fires().stream()
                    .filter(fireTime -> fireTime.isAfter(watermark))
                    .toList();
            List<Claim> open = new ArrayList<>();
            for (FireView view : ledger.read(recent)) {
                view.claims().values().stream()
                        .filter(claim -> claim.state().isOpen())
                        .forEach(open::add);
            }
            return open;
        } catch (Exception ex) {
            log.debug("Job {}: could not read the ledger: {}", local.name(), ex.toString());
            return List.of();
        }
    }

    /** The sessions of the live instances, from the cache: good enough for display, never for a take-over. */
    private Set<Long> cachedLiveSessions() {
        Set<Long> live = new HashSet<>();
        for (String instance : liveInstances()) {
            cache.node(nodes.instance(instance))
                    .ifPresent(node -> live.add(node.getStat().getEphemeralOwner()));
        }
        return live;
    }

    /** Items running now for a fire whose owner took them over from another instance, with the instance running each. */
    public Map<Integer, String> failoverOwners() {
        Set<Long> live = cachedLiveSessions();
        Map<Integer, String> owners = new TreeMap<>();
        openClaims().stream()
                .filter(claim -> claim.state() == ClaimState.RUNNING && claim.attempt() > 1)
                .filter(claim -> live.contains(claim.sessionId()))
                .forEach(claim -> owners.put(claim.item(), claim.instanceId()));
        return owners;
    }

    /** Items with an orphaned claim (its owner gone or gone away) that no instance has taken over yet. */
    public List<Integer> failoverQueue() {
        Set<Long> live = cachedLiveSessions();
        return openClaims().stream()
                .filter(claim -> claim.state() == ClaimState.RELEASED || !live.contains(claim.sessionId()))
                .map(Claim::item)
                .distinct()
                .sorted()
                .toList();
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

    /** Items whose claim for some unsettled fire is held by a live instance's session, read from the ledger. */
    public List<Integer> runningItems() {
        return List.copyOf(runningOwners().keySet());
    }

    /** Item to the instance whose live claim says it runs the item, read from the ledger. */
    public Map<Integer, String> runningOwners() {
        Set<Long> live = cachedLiveSessions();
        Map<Integer, String> owners = new TreeMap<>();
        openClaims().stream()
                .filter(claim -> claim.state() == ClaimState.RUNNING && live.contains(claim.sessionId()))
                .forEach(claim -> owners.put(claim.item(), claim.instanceId()));
        return owners;
    }

    /** Asks the leader for a new assignment now. */
    public void requestReshard() {
        sharding.requestReshard("requested on " + instanceId);
    }

    /** Disables an instance for this job: it leaves the election and gets no items. */
    public void disableInstance(String id) {
        createQuietly(nodes.disabledInstance(InstanceId.validate(id)));
    }

    public void enableInstance(String id) {
        deleteQuietly(nodes.disabledInstance(InstanceId.validate(id)));
    }

    /** Disables an item: its owner skips it until it is enabled again. */
    public void disableItem(int item) {
        createQuietly(nodes.disabledItem(checkItem(item)));
    }

    public void enableItem(int item) {
        deleteQuietly(nodes.disabledItem(checkItem(item)));
    }

    /** Stores a new count; every instance sees it and the leader reshards to it. */
    public JobConfiguration updateShardingTotalCount(int shardingTotalCount) {
        try {
            return configurations.updateShardingTotalCount(shardingTotalCount);
        } catch (JobConfigurationException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + local.name() + "': could not store the count", ex);
        }
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

    /** Asks for an audit of this instance's items soon, once however often it is asked meanwhile. */
    void requestAudit() {
        if (isStarted() && auditQueued.compareAndSet(false, true)) {
            serial.execute(() -> {
                auditQueued.set(false);
                runAudit();
            });
        }
    }

    private void runAudit() {
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

    /**
     * Waits until no reshard is pending, on a condition signalled by registry events, at most the sharding wait
     * timeout. A waiter that becomes leader meanwhile stops waiting and reshards itself (the seed's double check).
     *
     * @return the assignment the fire runs under
     */
    Assignment awaitSharding() {
        long remaining = shardingWaitTimeout.toNanos();
        boolean waited = false;
        lock.lock();
        try {
            while (((sharding.isReshardPending() && !election.isLeader()) || notAssignedYet())
                    && isAvailable()
                    && remaining > 0) {
                waited = true;
                remaining = changed.awaitNanos(remaining);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        if (sharding.isReshardPending() && election.isLeader()) {
            // Our own cache may not show what we just wrote yet: use the written assignment directly.
            Optional<Assignment> written = sharding.reshardIfNecessary();
            if (written.isPresent()) {
                return written.get();
            }
        }
        if (waited && !sharding.isReshardPending()) {
            // The flag's deletion can reach the cache before the assignment written in the same transaction does:
            // after a wait, read the new assignment from ZooKeeper rather than plan the fire with the old one.
            return sharding.readCurrentAssignment();
        }
        return sharding.currentAssignment();
    }

    /**
     * Whether the assignment in force was made before this instance registered. Its own reshard request reaches its
     * cache a moment after {@link #start()} returns, so without this a fire right after start would run nothing. An
     * instance that takes part but owns no items (more instances than items) is named with none, so it does not wait.
     */
    private boolean notAssignedYet() {
        return !sharding.currentAssignment().itemsByInstance().containsKey(instanceId);
    }

    private int checkItem(int item) {
        // With dynamic sharding the items are those of the assignment, not of the configured count.
        int total = configuration().dynamicSharding()
                ? assignment().shardingTotalCount()
                : configuration().shardingTotalCount();
        if (item < 0 || item >= total) {
            throw new IllegalArgumentException(
                    "Job '" + local.name() + "': item " + item + " is outside 0.." + (total - 1));
        }
        return item;
    }

    private void registryChanged(String path) {
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
        if (election.isLeader() && reconcileQueued.compareAndSet(false, true)) {
            serial.execute(() -> {
                reconcileQueued.set(false);
                reconcile(false);
            });
        }
    }

    private void leadershipChanged(boolean leader) {
        signalChange();
        if (leader) {
            serial.execute(this::reconcile);
        }
    }

    /** A resume that failed is retried here, so a reconnected instance never stays paused. */
    private void periodicCheck() {
        if (suspended && client.getZookeeperClient().isConnected()) {
            resumeAfterReconnect();
        }
        reconcile();
        runAudit();
    }

    private void reconcile() {
        reconcile(true);
    }

    /**
     * On the leader: raises the flag if the assignment no longer matches, reshards while it is up, and keeps the
     * ledger (watermark, completions, retention).
     *
     * @param periodic whether this is a periodic pass (look for the flag in ZooKeeper even when the cache shows none,
     *     and keep the ledger) rather than a reaction to a registry event
     */
    private void reconcile(boolean periodic) {
        if (!isAvailable() || !election.isLeader()) {
            return;
        }
        try {
            boolean pending = sharding.isReshardPending();
            if (!pending) {
                Optional<String> inconsistency = sharding.inconsistency();
                inconsistency.ifPresent(sharding::requestReshard);
                pending = inconsistency.isPresent();
            }
            if (pending || periodic) {
                sharding.reshardIfNecessary();
            }
            if (periodic) {
                keeper.pass(now(), sessionId());
            }
        } catch (Exception ex) {
            log.warn("Job {}: reconcile failed, will retry: {}", local.name(), ex.toString());
        }
    }

    private void connectionStateChanged(CuratorFramework changedClient, ConnectionState newState) {
        switch (newState) {
            case SUSPENDED -> {
                suspended = true;
                log.warn(
                        "Job {} on {}: connection suspended, no new items start until reconnected",
                        local.name(),
                        instanceId);
                scheduleInterrupt();
                signalChange();
            }
            case LOST -> {
                suspended = true;
                log.warn("Job {} on {}: session lost; owns nothing until it has reconnected", local.name(), instanceId);
                cancelPendingInterrupt();
                interruptRunningItems("the session was lost");
                signalChange();
            }
            case RECONNECTED -> {
                cancelPendingInterrupt();
                serial.execute(this::resumeAfterReconnect);
            }
            default -> {}
        }
    }

    /**
     * The server may expire a silent session as early as one session timeout after it last heard from us, and
     * SUSPENDED comes at most two thirds of a session timeout after that, so running items are interrupted a third of
     * a session timeout after SUSPENDED (less a margin): before any other instance can take them over.
     */
    private void scheduleInterrupt() {
        if (!interruptOnConnectionLoss) {
            return;
        }
        long sessionTimeout = negotiatedSessionTimeoutMillis();
        long delay = Math.max(0, sessionTimeout / 3 - Math.min(100, sessionTimeout / 10));
        cancelPendingInterrupt();
        pendingInterrupt = scheduler.schedule(
                () -> interruptRunningItems("the connection was lost for a third of the session timeout"),
                delay,
                TimeUnit.MILLISECONDS);
    }

    private void interruptRunningItems(String why) {
        if (interruptOnConnectionLoss && !executions.isIdle()) {
            log.warn("Job {}: interrupting items {}: {}", local.name(), executions.runningItems(), why);
            executions.abandonAll();
        }
    }

    private void cancelPendingInterrupt() {
        ScheduledFuture<?> pending = pendingInterrupt;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    private long negotiatedSessionTimeoutMillis() {
        try {
            int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (negotiated > 0) {
                return negotiated;
            }
        } catch (Exception ex) {
            // Fall through to the configured value.
        }
        return client.getZookeeperClient().getConnectionTimeoutMs();
    }

    private void resumeAfterReconnect() {
        if (!isStarted() || !suspended) {
            return;
        }
        try {
            // Read the current epoch from the server, not the cache, before starting anything again.
            client.sync().forPath(nodes.root());
            client.checkExists().forPath(nodes.assignment());
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not re-read the registry after reconnecting, will retry: {}",
                    local.name(),
                    ex.toString());
            return;
        }
        suspended = false;
        log.info("Job {} on {}: reconnected, resuming", local.name(), instanceId);
        signalChange();
        reconcile();
        // Fires missed while disconnected, claims whose end could not be written: the audit settles them.
        runAudit();
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

    private void signalChange() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void createStructure() throws Exception {
        for (String path : List.of(
                nodes.instances(),
                nodes.disabledInstances(),
                nodes.disabledItems(),
                nodes.leavingInstances(),
                nodes.ledger(),
                JobNodes.parent(nodes.assignment()),
                JobNodes.parent(nodes.reshardNecessary()))) {
            createQuietly(path);
        }
    }

    private void createQuietly(String path) {
        try {
            client.create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException exists) {
            // Already there: nothing to do.
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + local.name() + "': could not create " + path, ex);
        }
    }

    private void deleteQuietly(String path) {
        try {
            client.delete().quietly().forPath(path);
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + local.name() + "': could not delete " + path, ex);
        }
    }

    /** Settings of a coordinator; only the client and the configuration are required. */
    public static final class Builder {

        private final CuratorFramework client;

        private final JobConfiguration configuration;

        private String instanceId = InstanceId.ofThisProcess();

        private ShardingStrategies strategies = ShardingStrategies.defaults();

        private ScheduledExecutorService scheduler;

        private Duration startTimeout = Duration.ofSeconds(15);

        private Duration reconcileInterval = Duration.ofSeconds(10);

        private Duration shardingWaitTimeout = Duration.ofSeconds(10);

        private ItemExecutor job;

        private Executor itemExecutor = Runnable::run;

        private ExecutionListener listener = result -> {};

        private FireListener fireListener = new FireListener() {};

        private FireCompletionListener completionListener;

        private Duration shutdownGracePeriod = Duration.ofSeconds(30);

        private boolean interruptOnConnectionLoss = true;

        private Duration catchUpHorizon = Duration.ofMinutes(10);

        private Duration ledgerRetention = Duration.ofMinutes(1);

        private Clock clock = Clock.systemUTC();

        private Builder(CuratorFramework client, JobConfiguration configuration) {
            this.client = Objects.requireNonNull(client, "client");
            this.configuration = Objects.requireNonNull(configuration, "configuration");
        }

        /** This instance's id; defaults to {@code host@-@pid}. */
        public Builder instanceId(String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        public Builder strategies(ShardingStrategies strategies) {
            this.strategies = strategies;
            return this;
        }

        /** A pool shared by many jobs for coordination work; by default each coordinator has one thread of its own. */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** How long {@link #start()} waits for ZooKeeper. */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = startTimeout;
            return this;
        }

        /** How often the leader checks that every item has a live owner. */
        public Builder reconcileInterval(Duration reconcileInterval) {
            this.reconcileInterval = reconcileInterval;
            return this;
        }

        /** How long a fire waits for a pending reshard before running the assignment it has. */
        public Builder shardingWaitTimeout(Duration shardingWaitTimeout) {
            this.shardingWaitTimeout = shardingWaitTimeout;
            return this;
        }

        /**
         * The job's code and the executor its items run on. Needed for make-ups and take-overs, which run outside any
         * fire.
         */
        public Builder job(ItemExecutor job, Executor itemExecutor) {
            this.job = job;
            this.itemExecutor = itemExecutor;
            return this;
        }

        /** Told about every item run on this instance. */
        public Builder listener(ExecutionListener listener) {
            this.listener = listener;
            return this;
        }

        /** Told before and after this instance runs its items of each fire. */
        public Builder fireListener(FireListener fireListener) {
            this.fireListener = fireListener;
            return this;
        }

        /**
         * Told once per fire across the cluster when all its items ended. Every instance of the job should set one: the
         * call happens on whichever instance ends the fire's last item.
         */
        public Builder completionListener(FireCompletionListener completionListener) {
            this.completionListener = completionListener;
            return this;
        }

        /** How long {@link #close()} lets running items finish before releasing their claims to other instances. */
        public Builder shutdownGracePeriod(Duration shutdownGracePeriod) {
            this.shutdownGracePeriod = shutdownGracePeriod;
            return this;
        }

        /**
         * Whether running items are interrupted when the connection is lost long enough that the session may expire,
         * so that they stop before another instance can take them over. On by default.
         */
        public Builder interruptOnConnectionLoss(boolean interruptOnConnectionLoss) {
            this.interruptOnConnectionLoss = interruptOnConnectionLoss;
            return this;
        }

        /**
         * The clock of fires started without a fire time and of the fire completion records, which are forgotten a day
         * after their fire if they never complete. Defaults to {@link Clock#systemUTC()}; tests give one they control.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How far back missed fires are made up (under the misfire policies {@code once} and {@code all}); older ones are
         * recorded as skipped. Ten minutes by default.
         */
        public Builder catchUpHorizon(Duration catchUpHorizon) {
            this.catchUpHorizon = Objects.requireNonNull(catchUpHorizon, "catchUpHorizon");
            return this;
        }

        /** How long settled fires stay in the ledger before the leader deletes them. One minute by default. */
        public Builder ledgerRetention(Duration ledgerRetention) {
            this.ledgerRetention = Objects.requireNonNull(ledgerRetention, "ledgerRetention");
            return this;
        }

        public JobCoordinator build() {
            return new JobCoordinator(this);
        }
    }
}
