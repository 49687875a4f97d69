package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.config.JobConfigurationService;
import io.shardingjob.core.election.LeaderElection;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletionListener;
import io.shardingjob.core.execution.FireCompletions;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.RunningMark;
import io.shardingjob.core.execution.RunningMarks;
import io.shardingjob.core.failover.FailoverService;
import io.shardingjob.core.failover.Orphan;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.instance.InstanceRegistration;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * One job on one instance: registration, election, resharding and fires, with an explicit {@code start()/close()}
 * lifecycle. This is the class a program without Spring uses; the starter creates one per {@code @ShardedJob}.
 *
 * <p>Connection state is handled here and only here:
 *
 * <ul>
 *   <li>SUSPENDED: no new fire starts; the leader latch gives up leadership on its own;
 *   <li>LOST: the session, and with it this instance's registration and running marks, is gone; still no fire starts;
 *   <li>RECONNECTED: the registration is re-created by Curator (which raises the reshard flag, so this instance gets
 *       items again), the assignment is re-read from ZooKeeper, and only then do fires start again.
 * </ul>
 *
 * Race window: a fire that checked the connection an instant before SUSPENDED still starts its items; they carry the
 * epoch so that the job can fence its own writes.
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

    private final RunningMarks runningMarks;

    private final FailoverService failover;

    private final LocalExecutions executions = new LocalExecutions();

    private final FireRunner fireRunner;

    /** Null unless a completion listener was given: the tracking costs ZooKeeper writes per item. */
    private final FireCompletions completions;

    private final ItemExecutor job;

    private final Executor itemExecutor;

    private final Duration shutdownGracePeriod;

    private final boolean interruptOnConnectionLoss;

    /** The time of fires started without a fire time, and the clock unfinished fire completions are aged by. */
    private final Clock clock;

    private final AtomicBoolean runningOrphans = new AtomicBoolean();

    private volatile ScheduledFuture<?> pendingInterrupt;

    private final Queue<MissedFire> missedWhileSuspended = new ConcurrentLinkedQueue<>();

    /** Whether a pass over the marks and the failover queue is already waiting on the serial executor. */
    private final AtomicBoolean executionCheckQueued = new AtomicBoolean();

    /** Whether a reconcile is already waiting on the serial executor. */
    private final AtomicBoolean reconcileQueued = new AtomicBoolean();

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
        this.runningMarks = new RunningMarks(client, nodes, cache);
        this.failover = new FailoverService(client, nodes, cache, runningMarks);
        this.job = builder.job;
        this.itemExecutor = builder.itemExecutor;
        this.shutdownGracePeriod = builder.shutdownGracePeriod;
        this.interruptOnConnectionLoss = builder.interruptOnConnectionLoss;
        this.clock = builder.clock;
        this.completions = builder.completionListener == null
                ? null
                : new FireCompletions(client, nodes, instanceId, builder.completionListener, clock);
        this.fireRunner =
                new FireRunner(this, runningMarks, executions, builder.listener, builder.fireListener, completions);
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
     * Leaves cleanly: stops starting items, lets running ones finish within the shutdown grace period, hands the ones
     * still running then to failover, hands leadership over and deletes this instance's registration at once, so that
     * the others reshard without waiting for the session to time out. Work that completed is never failed over.
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
                    "Job {}: items {} still running after the {} ms grace period; interrupting them and handing them on",
                    local.name(),
                    executions.runningItems(),
                    shutdownGracePeriod.toMillis());
            handPendingFiresOn();
            executions.abandonAll();
            executions.awaitIdle(Duration.ofSeconds(1));
        }
        handPendingFiresOn();
        handOverLeftovers();
        state.set(State.CLOSED);
        closeParts();
        log.info("Job {} closed on instance {}", local.name(), instanceId);
    }

    /**
     * A closing instance gives its items up at once rather than after the grace period, so that no fire in between is
     * lost: it stays registered (its running marks stay live and nobody re-runs what it is finishing) but is left out
     * of the next assignment, and it hands leadership over.
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

    /** Fires still waiting to be made up here (misfires, runs waiting for another instance) go to failover. */
    private void handPendingFiresOn() {
        if (client.getZookeeperClient().isConnected()) {
            long session = sessionId();
            executions
                    .takePending()
                    .forEach((item, fireTime) -> fireRunner.handMisfireOn(item, Optional.of(fireTime), session));
        }
    }

    /** Whether close() is waiting for running items: fires arriving meanwhile are handed to failover. */
    boolean isStopping() {
        return state.get() == State.STOPPING && !suspended;
    }

    /** Marks of items this instance will not finish go to failover (or are dropped) while its session still lives. */
    private void handOverLeftovers() {
        try {
            if (client.getZookeeperClient().isConnected()) {
                failover.releaseOwnMarks(
                        instanceId,
                        sessionId(),
                        executions.runningItems(),
                        configuration().failover());
                // A clean leave: the survivors reshard at once, there are no missed fires to make up.
                client.delete().quietly().forPath(nodes.fire(instanceId, sessionId()));
            }
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not hand unfinished items on; the leader will reclaim them: {}",
                    local.name(),
                    ex.toString());
        }
    }

    /**
     * Runs one fire on this instance: the items it owns under the current epoch, minus disabled items, items still
     * running (here: misfired; elsewhere: skipped) and items taken over by failover, each on the given executor, and
     * waits for them (and for their misfire re-runs).
     */
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
     * Runs one fire.
     *
     * @param source {@link ExecutionSource#NORMAL} for a scheduled fire, {@link ExecutionSource#MANUAL} for one an
     *     operator asked for
     * @param fireTime the scheduled time of the fire, recorded with every item
     */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant fireTime) {
        if (isStarted()
                && suspended
                && (configuration().misfire() || configuration().failover())) {
            // Made up after reconnecting if the session survives (each fire, in order); if it does not, the leader's
            // failover makes them up.
            missedWhileSuspended.add(new MissedFire(fireTime, sessionId()));
        }
        FireReport report = fireRunner.fire(job, itemExecutor, source, fireTime);
        // A busy instance claims orphans as soon as its own items are done.
        serial.execute(this::claimOrphans);
        return report;
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

    /** The current ZooKeeper session of this instance's client. */
    long sessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    /** Items taken over by failover since the last reshard, with the instance that took each. */
    public Map<Integer, String> failoverOwners() {
        return failover.owners();
    }

    /** Hands an item this instance marked but will not start to failover, for the fire it was marked for. */
    void handOver(int item) {
        try {
            failover.handOver(item, instanceId, sessionId(), configuration().failover());
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not hand item {} over; the leader will reclaim it: {}",
                    local.name(),
                    item,
                    ex.toString());
        }
    }

    /** Queues one item of one fire for failover: it runs, for that fire, wherever an idle instance claims it. */
    void enqueueOrphan(int item, RunningMark mark) throws Exception {
        failover.enqueue(item, mark);
    }

    /** Items taken over from this instance, with the fire they were taken over for: that fire is not run here again. */
    Map<Integer, Instant> takenFromThisInstance() {
        Map<Integer, Instant> taken = new TreeMap<>();
        failover.takeovers().forEach((item, takeover) -> {
            if (takeover.from().equals(instanceId)) {
                taken.put(item, takeover.fireTime());
            }
        });
        return taken;
    }

    /** Items queued for failover and not claimed yet (each once, however many of its fires are queued). */
    public List<Integer> failoverQueue() {
        return failover.queue().stream().map(Orphan::item).distinct().sorted().toList();
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

    /** Items marked running (or planned in a running fire) by any instance, from the cache. */
    public List<Integer> runningItems() {
        return List.copyOf(runningMarks.all().keySet());
    }

    /** Item to the instance whose mark says it runs the item, from the cache. */
    public Map<Integer, String> runningOwners() {
        Map<Integer, String> owners = new TreeMap<>();
        runningMarks.all().forEach((item, mark) -> owners.put(item, mark.instanceId()));
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

    /** The assignment a fire at that time plans with: see {@link ShardingService#inForceAt}. */
    Assignment assignmentInForceAt(Instant fireTime, Assignment current) {
        return sharding.inForceAt(fireTime, current, instanceId);
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
        if (nodes.assignment().equals(path)) {
            // Seen now, so that a fire planned a moment later knows which assignment was in force before this one.
            sharding.currentAssignment();
        }
        signalChange();
        if (!isStarted()) {
            return;
        }
        if (path != null
                && (path.startsWith(nodes.failoverQueue()) || path.startsWith(nodes.running()))
                && executionCheckQueued.compareAndSet(false, true)) {
            // A fire's marks arrive as a burst of events, one per item: checking once after the burst, rather than once
            // per event over every mark, keeps a fire of n items at O(n) here instead of O(n^2).
            serial.execute(() -> {
                executionCheckQueued.set(false);
                claimOrphans();
                runItemsNoLongerRunningElsewhere();
            });
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
            // Every mark of every fire passes here: once per burst, and trusting the cache for the flag (its own event
            // brings us back here).
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
        claimOrphans();
    }

    private void reconcile() {
        reconcile(true);
    }

    /**
     * On the leader: raises the flag if the assignment no longer matches, and reshards while it is up.
     *
     * @param askZooKeeper whether to look for the flag in ZooKeeper even when the cache shows none: after a reconnect,
     *     a leadership change and periodically, when the cache may lag; not on each registry event
     */
    private void reconcile(boolean askZooKeeper) {
        if (!isAvailable() || !election.isLeader()) {
            return;
        }
        try {
            // Reclaim first: while a dead instance is still in the assignment, its items are known exactly.
            boolean failoverOn = configuration().failover();
            failover.reclaimStaleMarks(failoverOn, sharding.currentAssignment(), sharding::assignmentOfEpoch);
            boolean pending = sharding.isReshardPending();
            if (!pending) {
                Optional<String> inconsistency = sharding.inconsistency();
                inconsistency.ifPresent(sharding::requestReshard);
                pending = inconsistency.isPresent();
            }
            if (pending || askZooKeeper) {
                sharding.reshardIfNecessary();
            }
            if (!failoverOn && failover.hasState()) {
                failover.clearAll();
            }
            if (completions != null) {
                completions.reconcile();
            }
        } catch (Exception ex) {
            log.warn("Job {}: reconcile failed, will retry: {}", local.name(), ex.toString());
        }
    }

    /**
     * A fire that found an item running on another instance is made up here once that run's mark is gone, if the item
     * is still ours: the misfire rule, across instances.
     */
    private void runItemsNoLongerRunningElsewhere() {
        if (job == null || !isAvailable()) {
            return;
        }
        Map<Integer, String> running = runningOwners();
        List<Integer> owned = localItems();
        executions.runningElsewhere().forEach((item, fireTime) -> {
            if (running.containsKey(item)) {
                return;
            }
            if (!executions.takeRunningElsewhere(item, fireTime)) {
                return;
            }
            if (owned.contains(item)) {
                log.info("Job {}: item {} finished elsewhere; making up the fire at {}", local.name(), item, fireTime);
                inBackground(
                        "make-up",
                        () -> fireRunner.fire(job, itemExecutor, ExecutionSource.MISFIRE, fireTime, Set.of(item)));
            } else {
                // A reshard moved the item meanwhile: its new owner did not see this fire, so failover makes it up.
                Assignment assignment = assignment();
                try {
                    failover.enqueue(
                            item,
                            new RunningMark(
                                    instanceId,
                                    sessionId(),
                                    assignment.epoch(),
                                    fireTime,
                                    assignment.shardingTotalCount(),
                                    ExecutionSource.MISFIRE));
                } catch (Exception ex) {
                    log.warn(
                            "Job {}: could not queue item {} of the fire at {}: {}",
                            local.name(),
                            item,
                            fireTime,
                            ex.toString());
                }
            }
        });
    }

    /**
     * Claims and runs orphans while this instance is idle for the job, a fair share at a time, until the queue is
     * empty: unlike Elastic-Job, which claims one item per pass and can leave one behind until the next fire.
     */
    private void claimOrphans() {
        if (job == null
                || !isAvailable()
                || !executions.isIdle()
                || !configuration().failover()) {
            return;
        }
        if (failover.queue().isEmpty() || !runningOrphans.compareAndSet(false, true)) {
            return;
        }
        int queued = failover.queuedCount();
        int share = (queued + Math.max(1, liveInstances().size()) - 1)
                / Math.max(1, liveInstances().size());
        List<Orphan> won = failover.claim(share, instanceId, sessionId());
        if (won.isEmpty()) {
            runningOrphans.set(false);
            return;
        }
        fireRunner.runOrphans(won, job, itemExecutor).whenComplete((done, failure) -> {
            runningOrphans.set(false);
            serial.execute(this::claimOrphans);
        });
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

    /**
     * How far back an instance's fire record lists its fires: a dead instance goes unnoticed for a session timeout,
     * and its death is acted on after a reshard, so a generous multiple of the session timeout covers every fire it
     * missed.
     */
    Duration fireRecordRetention() {
        return Duration.ofMillis(4 * negotiatedSessionTimeoutMillis()).plusSeconds(30);
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
        try {
            // Items interrupted while disconnected left marks under this (surviving) session: hand them on.
            failover.releaseOwnMarks(
                    instanceId,
                    sessionId(),
                    executions.runningItems(),
                    configuration().failover());
        } catch (Exception ex) {
            log.warn("Job {}: could not hand interrupted items on; the leader will: {}", local.name(), ex.toString());
        }
        suspended = false;
        log.info("Job {} on {}: reconnected, resuming", local.name(), instanceId);
        signalChange();
        reconcile();
        claimOrphans();
        makeUpFireMissedWhileSuspended();
    }

    private void makeUpFireMissedWhileSuspended() {
        List<Instant> missed = new ArrayList<>();
        long session = sessionId();
        for (MissedFire fire = missedWhileSuspended.poll(); fire != null; fire = missedWhileSuspended.poll()) {
            if (fire.sessionId() == session) {
                missed.add(fire.fireTime());
            }
        }
        if (missed.isEmpty() || job == null) {
            return;
        }
        log.info("Job {}: making up the fires at {} missed while disconnected", local.name(), missed);
        inBackground(
                "make-up",
                () -> missed.forEach(fireTime -> fire(job, itemExecutor, ExecutionSource.MISFIRE, fireTime)));
    }

    /**
     * A make-up fire waits for its items like any fire; it runs on a thread of its own (rare, short-lived) so that it
     * blocks neither the coordination thread nor a slot of a bounded item executor.
     */
    private void inBackground(String what, Runnable task) {
        Thread thread = new Thread(task, "sharding-" + local.name() + "-" + what);
        thread.setDaemon(true);
        thread.start();
    }

    /** A fire that arrived while disconnected, and the session it arrived under. */
    private record MissedFire(Instant fireTime, long sessionId) {}

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
                nodes.running(),
                nodes.failoverQueue(),
                nodes.failoverOwners(),
                nodes.fires(),
                nodes.completions(),
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
         * The job's code and the executor its items run on. Needed for failover, which runs claimed orphans at once,
         * outside any fire.
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

        /** How long {@link #close()} lets running items finish before handing them to failover. */
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

        public JobCoordinator build() {
            return new JobCoordinator(this);
        }
    }
}
