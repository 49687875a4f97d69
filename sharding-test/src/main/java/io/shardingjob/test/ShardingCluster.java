package io.shardingjob.test;

import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.sharding.Assignment;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A ZooKeeper in this process (one server, or an ensemble of a few), and the instances of an application a test starts
 * on it, each its own Spring application context with the starter, connected through proxies of its own so that the
 * test can cut or freeze its link, and all telling time by one {@link #clock()} the test moves. What {@link
 * ShardingTest} gives each test; close it when used on its own.
 *
 * <p>Instances get short timings, so that faults play out in seconds: 2 s sessions, a reconcile interval of 500 ms.
 * Their properties override these. All of them win over the application's own files, as command-line arguments do;
 * the connect string is always the instance's proxies.
 */
public final class ShardingCluster implements AutoCloseable {

    /** The session timeout instances get unless their properties say otherwise. */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);

    /** How long an await waits unless told otherwise. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    private final ZooKeeperServers zooKeeper;
    private final MovableClock clock = new MovableClock();
    private final String namespace = "sharding-test-" + UUID.randomUUID();
    private final List<ShardingInstance> instances = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private ShardingCluster(ZooKeeperServers zooKeeper) {
        this.zooKeeper = zooKeeper;
        clock.onMove(() -> instances().forEach(ShardingInstance::clockMoved));
    }

    /** Starts a ZooKeeper server with a tick of 100 ms, so that sessions may be as short as 200 ms. */
    public static ShardingCluster start() {
        return new ShardingCluster(ZooKeeperServers.start(1));
    }

    /**
     * Starts a ZooKeeper ensemble of {@code servers} servers (3 or 5 to outlive the loss of one or two), each with a tick
     * of 100 ms. Each instance reaches each server through a proxy of its own.
     */
    public static ShardingCluster startEnsemble(int servers) {
        return new ShardingCluster(ZooKeeperServers.start(servers));
    }

    /** The servers' addresses, as a client outside the instances would connect. */
    public String connectString() {
        return zooKeeper.connectString();
    }

    /** The ZooKeeper's servers: one, or the ensemble's members. */
    public List<ZooKeeperServer> zooKeepers() {
        return zooKeeper.servers();
    }

    /** The ZooKeeper's server at {@code index}, from 0, to stop and restart it. */
    public ZooKeeperServer zooKeeper(int index) {
        return zooKeeper.servers().get(index);
    }

    /**
     * The time every instance tells, which the test moves forward to make its jobs' schedules fire: see {@link
     * MovableClock}.
     */
    public MovableClock clock() {
        return clock;
    }

    /** Starts an instance of the application made of {@code sources}, under this id, and waits until it runs. */
    public ShardingInstance start(String instanceId, Class<?>... sources) {
        return start(instanceId, List.of(sources), Map.of());
    }

    /**
     * Starts an instance of the application made of {@code sources}, with {@code properties} over the cluster's, and
     * waits until its context is refreshed.
     */
    public ShardingInstance start(String instanceId, List<Class<?>> sources, Map<String, String> properties) {
        if (closed.get()) {
            throw new IllegalStateException("The cluster is closed");
        }
        Map<String, String> all = new LinkedHashMap<>();
        all.put("sharding.zookeeper.namespace", namespace);
        all.put("sharding.zookeeper.session-timeout", SESSION_TIMEOUT.toMillis() + "ms");
        all.put("sharding.zookeeper.connection-timeout", "5s");
        all.put("sharding.zookeeper.base-sleep-time", "100ms");
        all.put("sharding.zookeeper.max-sleep-time", "500ms");
        all.put("sharding.coordination.reconcile-interval", "500ms");
        all.put("sharding.coordination.sharding-wait-timeout", "3s");
        all.put("sharding.shutdown.grace-period", "3s");
        all.put("sharding.instance-id", instanceId);
        all.put("spring.main.web-application-type", "none");
        all.put("spring.main.banner-mode", "off");
        all.putAll(properties);
        try {
            ShardingInstance instance =
                    ShardingInstance.start(instanceId, zooKeeper.servers(), connectString(), sources, all, clock);
            instances.add(instance);
            return instance;
        } catch (IOException ex) {
            throw new IllegalStateException("Could not open a proxy for instance " + instanceId, ex);
        }
    }

    /** The instances started and not stopped, in the order they started. */
    public List<ShardingInstance> instances() {
        return instances.stream().filter(ShardingInstance::isRunning).toList();
    }

    /**
     * Waits until every running instance that is connected runs the job under the same assignment, made for exactly
     * them, with no reshard pending: what a fire needs to run each item where the assignment says.
     */
    public void awaitSettled(String job) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<JobCoordinator> coordinators = instances().stream()
                    .filter(ShardingInstance::isConnected)
                    .map(instance -> instance.job(job))
                    .toList();
            if (coordinators.isEmpty()) {
                return false;
            }
            Assignment first = coordinators.get(0).assignment();
            List<String> ids =
                    coordinators.stream().map(JobCoordinator::instanceId).toList();
            return first.epoch() > 0
                    && first.itemsByInstance().keySet().containsAll(ids)
                    && coordinators.stream()
                            .allMatch(coordinator -> !coordinator.isReshardPending()
                                    && coordinator.assignment().equals(first));
        });
    }

    /**
     * Fires the job now, as an operator's trigger does: every instance runs its items of the fire.
     *
     * @return the fire's time, its identity in the ledger
     */
    public Instant fire(String job) {
        ShardingInstance through = instances().stream()
                .filter(ShardingInstance::isConnected)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No connected instance to fire job '" + job + "' on"));
        return through.operations()
                .trigger(job, null)
                .orElseThrow(() -> new IllegalStateException("Job '" + job + "' is not running on " + through.id()));
    }

    /** Fires the job now and waits until the fire is settled: see {@link #awaitFire}. */
    public FireRecord fireAndAwait(String job) {
        return awaitFire(job, fire(job));
    }

    /** {@link #awaitFire(String, Instant, Duration)} with {@link #PATIENCE}. */
    public FireRecord awaitFire(String job, Instant fireTime) {
        return awaitFire(job, fireTime, PATIENCE);
    }

    /**
     * Waits until the ledger holds the fire settled (every item ended, made up or skipped) and every instance that
     * ended an item of it has its run in its executions, then gives what every running instance recorded of it. The
     * ledger keeps a settled fire for a minute of the {@link #clock()}: wait for a fire before moving the clock further
     * past it, or read its runs from {@link #runs(String)}.
     */
    public FireRecord awaitFire(String job, Instant fireTime, Duration patience) {
        AtomicReference<FireRecord> settled = new AtomicReference<>();
        await().atMost(patience)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    record(job, fireTime)
                            .filter(found -> found.ledger().settled() && found.everyEndIsInTheRuns())
                            .ifPresent(settled::set);
                    return settled.get() != null;
                });
        return settled.get();
    }

    /**
     * What the ledger and the running instances' executions hold of the fire now: empty when the ledger does not hold
     * it, or no instance is connected to read it.
     */
    public Optional<FireRecord> record(String job, Instant fireTime) {
        List<ShardingInstance> running = instances();
        Optional<ShardingInstance> reader =
                running.stream().filter(ShardingInstance::isConnected).findFirst();
        if (reader.isEmpty()) {
            return Optional.empty();
        }
        JobCoordinator coordinator = reader.get().job(job);
        Optional<LedgerFire> ledger = coordinator.ledger().recentFires(64).stream()
                .filter(fire -> fire.fireTime().equals(fireTime))
                .findFirst();
        if (ledger.isEmpty()) {
            return Optional.empty();
        }
        List<ExecutionRecord> runs = running.stream()
                .flatMap(instance -> instance.operations().recentExecutions(job).stream())
                .filter(run -> run.fireTime().equals(fireTime))
                .toList();
        return Optional.of(
                new FireRecord(job, fireTime, coordinator.configuration().shardingTotalCount(), ledger.get(), runs));
    }

    /**
     * Every run of the job the running instances recorded (their recent executions), by fire time then start: what
     * remains of fires the ledger no longer holds, such as the make-ups of fires a move of the {@link #clock()} passed.
     */
    public List<ExecutionRecord> runs(String job) {
        return instances().stream()
                .flatMap(instance -> instance.operations().recentExecutions(job).stream())
                .sorted(Comparator.comparing(ExecutionRecord::fireTime).thenComparing(ExecutionRecord::start))
                .toList();
    }

    /** Stops every instance, then the ZooKeeper. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (ShardingInstance instance : instances) {
            instance.close();
        }
        try {
            zooKeeper.close();
        } catch (IOException ex) {
            throw new IllegalStateException("Could not stop the test's ZooKeeper", ex);
        }
    }
}
