package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.Answers;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientMultis;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingResultVerifier;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reshard flag and the leader's assignment. Anyone may raise the flag; only the leader clears it, and it does so in
 * the same multi-operation that writes the new assignment, the new epoch and the removal of state beyond the count, so
 * that no reader ever sees a half-written assignment.
 *
 * <p>The leader reads the flag's version first and deletes the flag only at that version: a trigger that arrives while
 * it computes (an instance joining, say) bumps the version, the transaction fails and the leader starts over with the
 * fresh membership. A deposed leader racing a new one fails the same way on the assignment's version. Each reshard
 * costs a constant number of round trips (a handful of reads and one multi), whatever the item count.
 */
public final class ShardingService {

    private static final Logger log = LoggerFactory.getLogger(ShardingService.class);

    private static final int MAX_ATTEMPTS = 5;

    private final CuratorFramework client;

    private final AsyncCuratorFramework async;

    /** How the reshard's reads reach ZooKeeper: one multi, merged with the client's other reads. */
    private final ClientRequests requests;

    private final JobNodes nodes;

    private final JobCache cache;

    private final String jobName;

    private final Supplier<JobConfiguration> configuration;

    private final Function<String, ShardingStrategy> strategies;

    private final BooleanSupplier leader;

    private volatile CachedAssignment cached = new CachedAssignment(-1, -1, Assignment.NONE);

    private volatile long lastWrittenEpoch;

    public ShardingService(
            CuratorFramework client,
            JobNodes nodes,
            JobCache cache,
            Supplier<JobConfiguration> configuration,
            Function<String, ShardingStrategy> strategies,
            BooleanSupplier leader) {
        this.client = client;
        this.async = AsyncCuratorFramework.wrap(client);
        this.requests = new ClientRequests(client, "Sharding");
        this.nodes = nodes;
        this.cache = cache;
        this.jobName = JobNodes.name(nodes.root());
        this.configuration = configuration;
        this.strategies = strategies;
        this.leader = leader;
    }

    /** Raises the flag, or bumps its version if it is already up, so that a leader mid-reshard starts over. */
    public void requestReshard(String reason) {
        try {
            requestReshardAsync(reason).join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }

    /** {@link #requestReshard}, without waiting: completes on Curator's event thread. */
    public CompletableFuture<Void> requestReshardAsync(String reason) {
        return requestReshardAsync(reason, 1);
    }

    /**
     * The flag's create, or its data set when it is up already (which bumps its version), each in the multis every job
     * of the client shares: thousands of jobs registering at once raise their flags in a few requests.
     */
    private CompletableFuture<Void> requestReshardAsync(String reason, int attempt) {
        byte[] data = reason.getBytes(StandardCharsets.UTF_8);
        String flag = nodes.reshardNecessary();
        return requests.multiAsync("Flag", List.of(requests.createPersistent(flag, data)))
                .thenCompose(created -> created.refusal() == KeeperException.Code.NODEEXISTS
                        ? requests.multiAsync("Flag", List.of(Op.setData(requests.full(flag), data, -1)))
                        : CompletableFuture.completedFuture(created))
                .thenCompose(answer -> {
                    KeeperException.Code code = answer.refusal();
                    if (code == KeeperException.Code.OK) {
                        log.debug("Job {}: reshard requested ({})", jobName, reason);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (code == KeeperException.Code.NONODE && attempt < MAX_ATTEMPTS) {
                        // The leader cleared the flag between our create and set: raise it again.
                        return requestReshardAsync(reason, attempt + 1);
                    }
                    throw new CompletionException(new IllegalStateException(
                            "Job '" + jobName + "': could not request a reshard", KeeperException.create(code, flag)));
                })
                .exceptionallyCompose(failure -> {
                    Throwable cause = Answers.cause(failure);
                    return CompletableFuture.failedFuture(
                            cause instanceof IllegalStateException refused
                                    ? refused
                                    : new IllegalStateException(
                                            "Job '" + jobName + "': could not request a reshard", cause));
                });
    }

    public boolean isReshardPending() {
        return cache.exists(nodes.reshardNecessary());
    }

    /** The assignment in force, from the local cache. */
    public Assignment currentAssignment() {
        return currentVersioned().assignment();
    }

    /**
     * The assignment in force, from the local cache, with the version of its node as cached: a write that carries a
     * {@code check} of that version is refused once a newer assignment was written.
     */
    public Versioned currentVersioned() {
        Optional<ChildData> node = cache.node(nodes.assignment());
        if (node.isEmpty()) {
            return new Versioned(Assignment.NONE, -1);
        }
        CachedAssignment current = cached;
        long modified = node.get().getStat().getMzxid();
        if (current.mzxid != modified) {
            current = new CachedAssignment(
                    modified,
                    node.get().getStat().getVersion(),
                    Assignment.decode(node.get().getData()));
            cached = current;
        }
        return new Versioned(current.assignment, current.version);
    }

    /**
     * The assignment in force and its node's version, read from ZooKeeper (one round trip, waited for: an item's
     * thread asks, when a start was refused for an outdated assignment).
     */
    public Versioned readVersioned() {
        Stat stat = new Stat();
        Assignment read = readAssignment(stat).join();
        return new Versioned(read, read == Assignment.NONE ? -1 : stat.getVersion());
    }

    /** An assignment and the version of the node it was read from; -1 when there is none. */
    public record Versioned(Assignment assignment, int version) {}

    /**
     * The assignment in force, read from ZooKeeper (one round trip, waited for: a fire's thread asks); the cached one if
     * ZooKeeper cannot answer.
     */
    public Assignment readCurrentAssignment() {
        try {
            Assignment read = readAssignment(new Stat()).join();
            Assignment cachedNow = currentAssignment();
            return read.epoch() >= cachedNow.epoch() ? read : cachedNow;
        } catch (Exception ex) {
            return currentAssignment();
        }
    }

    /** The live instances that are not disabled, from the cache, sorted. */
    public List<String> shardingInstances() {
        Set<String> disabled = new HashSet<>(cache.children(nodes.disabledInstances()));
        disabled.addAll(cache.children(nodes.leavingInstances()));
        return cache.children(nodes.instances()).stream()
                .filter(instance -> !disabled.contains(instance))
                .toList();
    }

    /**
     * Why the cached state needs a reshard even though the flag is down: the count changed, an owner is gone, or a
     * sharding instance has no entry. Empty when the assignment matches.
     */
    public Optional<String> inconsistency() {
        Assignment assignment = currentAssignment();
        if (assignment.epoch() < lastWrittenEpoch) {
            // This leader wrote a newer assignment that its cache has not caught up with: nothing to judge yet.
            return Optional.empty();
        }
        JobConfiguration config = configuration.get();
        int total = config.dynamicSharding()
                ? DynamicSharding.total(shardingInstances().size())
                : config.shardingTotalCount();
        if (assignment.shardingTotalCount() != total) {
            return Optional.of(
                    "shardingTotalCount is " + total + ", assignment was made for " + assignment.shardingTotalCount());
        }
        Set<String> sharding = Set.copyOf(shardingInstances());
        if (!sharding.equals(assignment.itemsByInstance().keySet())) {
            return Optional.of("instances " + sharding + " differ from the assigned "
                    + assignment.itemsByInstance().keySet());
        }
        return Optional.empty();
    }

    /**
     * On the leader, writes a new assignment if the flag is up; elsewhere does nothing. Waits for the answers: for a fire
     * that found the flag up on the leader, on its own thread.
     *
     * @return the new assignment, or empty when nothing was written
     */
    public Optional<Assignment> reshardIfNecessary() {
        try {
            return reshardIfNecessaryAsync().join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }

    /**
     * {@link #reshardIfNecessary}, without waiting: each request is sent when the previous one is answered, and the
     * result completes on Curator's event thread. Two reshards at once (the loop's and a fire's) are decided by the
     * versions the transaction checks: the one that loses starts over and finds the flag gone.
     */
    public CompletableFuture<Optional<Assignment>> reshardIfNecessaryAsync() {
        return reshardIfNecessaryAsync(1);
    }

    private CompletableFuture<Optional<Assignment>> reshardIfNecessaryAsync(int attempt) {
        if (attempt > MAX_ATTEMPTS || !leader.getAsBoolean()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return reshardOnce()
                .handle((written, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture(written);
                    }
                    Throwable cause = Answers.cause(failure);
                    if (cause instanceof KeeperException.BadVersionException
                            || cause instanceof KeeperException.NoNodeException
                            || cause instanceof KeeperException.NodeExistsException) {
                        log.debug(
                                "Job {}: reshard attempt {} raced with another change ({}), retrying",
                                jobName,
                                attempt,
                                ((KeeperException) cause).code());
                        return reshardIfNecessaryAsync(attempt + 1);
                    }
                    throw new CompletionException(
                            new IllegalStateException("Job '" + jobName + "': reshard failed", cause));
                })
                .thenCompose(next -> next);
    }

    /**
     * Reads the flag with the state it is settled from, and when the flag is up writes the assignment with the flag's
     * clearing in one multi: the versions read decide a race with another leader's reshard or a new request.
     */
    private CompletableFuture<Optional<Assignment>> reshardOnce() {
        return readState()
                .thenCompose(state -> state.flag() == null
                        ? CompletableFuture.completedFuture(Optional.empty())
                        : commit(state, state.flag()));
    }

    /** What a reshard is computed from, read from ZooKeeper rather than the cache; the flag null when it is down. */
    private record State(
            @Nullable Stat flag,
            JobConfiguration config,
            List<String> instances,
            Assignment previous,
            int assignmentVersion,
            List<String> disabledItems) {}

    /**
     * Reads the state in one multi of reads, merged with the reads the client's other jobs send meanwhile ({@link
     * ClientRequests}): thousands of jobs electing leaders at start-up each read it once. Before, a reshard sent eight
     * requests: the flag's, a processing node's write, then the state's six reads.
     */
    private CompletableFuture<State> readState() {
        List<Op> reads = List.of(
                Op.getData(requests.full(nodes.reshardNecessary())),
                Op.getData(requests.full(nodes.config())),
                Op.getChildren(requests.full(nodes.instances())),
                Op.getChildren(requests.full(nodes.disabledInstances())),
                Op.getChildren(requests.full(nodes.leavingInstances())),
                Op.getData(requests.full(nodes.assignment())),
                Op.getChildren(requests.full(nodes.disabledItems())));
        return requests.readAsync("ReadState", reads, ClientMultis.SMALL_LISTING_BYTES, ClientMultis.ITEMS_DATA_BYTES)
                .thenApply(answer -> {
                    List<OpResult> results = answer.results();
                    @Nullable Stat flag = null;
                    if (results.get(0) instanceof OpResult.GetDataResult raised) {
                        flag = raised.getStat();
                    } else {
                        failUnlessMissing(results.get(0), nodes.reshardNecessary());
                    }
                    List<String> sharding = new ArrayList<>(listing(results, 2, nodes.instances()));
                    sharding.removeAll(listing(results, 3, nodes.disabledInstances()));
                    sharding.removeAll(listing(results, 4, nodes.leavingInstances()));
                    sharding.sort(null);
                    Assignment previous = Assignment.NONE;
                    int assignmentVersion = 0;
                    if (results.get(5) instanceof OpResult.GetDataResult assignment) {
                        previous = Assignment.decode(assignment.getData());
                        assignmentVersion = assignment.getStat().getVersion();
                    } else {
                        failUnlessMissing(results.get(5), nodes.assignment());
                    }
                    return new State(
                            flag,
                            configuration(results.get(1)),
                            sharding,
                            previous,
                            assignmentVersion,
                            listing(results, 6, nodes.disabledItems()));
                });
    }

    /** The shared configuration as just read; the cached one if it is invalid or could not be read. */
    private JobConfiguration configuration(OpResult read) {
        if (read instanceof OpResult.GetDataResult data) {
            try {
                return JobConfigurationCodec.decode(jobName, data.getData());
            } catch (RuntimeException invalid) {
                return configuration.get();
            }
        }
        return configuration.get();
    }

    private static List<String> listing(List<OpResult> results, int index, String path) {
        if (results.get(index) instanceof OpResult.GetChildrenResult listing) {
            return listing.getChildren();
        }
        throw ClientRequests.refused(MultiAnswer.codeOf(results.get(index)), path);
    }

    private static void failUnlessMissing(OpResult result, String path) {
        if (!MultiAnswer.isMissing(result)) {
            throw ClientRequests.refused(MultiAnswer.codeOf(result), path);
        }
    }

    private CompletableFuture<Optional<Assignment>> commit(State state, Stat flag) {
        JobConfiguration config = state.config();
        Assignment previous = state.previous();
        Assignment computed = compute(config, state.instances(), previous);
        List<Op> ops = new ArrayList<>();
        boolean unchanged = previous.shardingTotalCount() == computed.shardingTotalCount()
                && previous.itemsByInstance().equals(computed.itemsByInstance());
        // Nothing moves (a member re-registered, say): keep the epoch so that no running item is fenced off.
        Assignment next = unchanged ? previous : computed;
        String assignment = requests.full(nodes.assignment());
        if (unchanged) {
            ops.add(Op.check(assignment, state.assignmentVersion()));
        } else if (previous == Assignment.NONE) {
            ops.add(requests.createPersistent(nodes.assignment(), next.encode()));
        } else {
            ops.add(Op.setData(assignment, next.encode(), state.assignmentVersion()));
        }
        ops.add(Op.delete(requests.full(nodes.reshardNecessary()), flag.getVersion()));
        for (String item : state.disabledItems()) {
            if (Integer.parseInt(item) >= next.shardingTotalCount()) {
                ops.add(Op.delete(requests.full(nodes.disabledItems() + "/" + item), -1));
            }
        }
        // In the multis every job of the client shares: thousands of leaders' first assignments go in a few requests.
        return requests.multiAsync("Commit", ops).thenApply(answer -> {
            if (!answer.ok()) {
                throw ClientRequests.refused(answer.refusal(), answer.refusedPath(ops, assignment));
            }
            lastWrittenEpoch = next.epoch();
            if (unchanged) {
                log.debug("Job {}: reshard flag cleared, epoch {} still in force", jobName, next.epoch());
                return Optional.<Assignment>empty();
            }
            log.info(
                    "Job {}: epoch {} assigns {} items with strategy '{}': {}",
                    jobName,
                    next.epoch(),
                    next.shardingTotalCount(),
                    config.dynamicSharding() ? "dynamic" : config.strategy(),
                    next.itemsByInstance());
            return Optional.of(next);
        });
    }

    private Assignment compute(JobConfiguration config, List<String> instances, Assignment previous) {
        long epoch = previous.epoch() + 1;
        if (config.dynamicSharding()) {
            // The total follows the cluster; the configured count is not used.
            return new Assignment(
                    epoch,
                    DynamicSharding.total(instances.size()),
                    DynamicSharding.assign(instances, previous.itemsByInstance()));
        }
        if (instances.isEmpty()) {
            return new Assignment(epoch, config.shardingTotalCount(), Map.of());
        }
        ShardingStrategy strategy = strategies.apply(config.strategy());
        ShardingRequest request =
                new ShardingRequest(jobName, config.shardingTotalCount(), instances, previous.itemsByInstance());
        Map<String, List<Integer>> result = ShardingResultVerifier.verified(strategy, request, strategy.shard(request));
        return new Assignment(epoch, config.shardingTotalCount(), result);
    }

    private CompletableFuture<Assignment> readAssignment(Stat stat) {
        return async.getData()
                .storingStatIn(stat)
                .forPath(nodes.assignment())
                .toCompletableFuture()
                .thenApply(Assignment::decode)
                .exceptionallyCompose(failure -> Answers.cause(failure) instanceof KeeperException.NoNodeException
                        ? CompletableFuture.completedFuture(Assignment.NONE)
                        : CompletableFuture.failedFuture(failure));
    }

    private record CachedAssignment(long mzxid, int version, Assignment assignment) {}
}
