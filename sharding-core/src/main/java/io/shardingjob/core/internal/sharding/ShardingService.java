package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reshard flag and the leader's assignment. Anyone may raise the flag; only the leader clears it, at the version it
 * read, in the multi that writes the new assignment ({@link Reshard}): a trigger that arrives while it computes (an
 * instance joining, say) bumps the version, the write fails and the leader starts over with the fresh membership. Each
 * reshard costs a constant number of round trips (a handful of reads and one multi), whatever the item count.
 */
public final class ShardingService {

    private static final Logger log = LoggerFactory.getLogger(ShardingService.class);
    private static final int MAX_ATTEMPTS = 5;
    private final AsyncCuratorFramework async;
    private final ClientRequests requests;
    private final JobNodes nodes;
    private final JobCache cache;
    private final String jobName;
    private final Supplier<JobConfiguration> configuration;
    private final BooleanSupplier leader;
    private final Reshard reshard;
    private volatile CachedAssignment cached = new CachedAssignment(-1, -1, Assignment.NONE);

    public ShardingService(
            CuratorFramework client,
            JobNodes nodes,
            JobCache cache,
            Supplier<JobConfiguration> configuration,
            Function<String, ShardingStrategy> strategies,
            BooleanSupplier leader) {
        this.async = AsyncCuratorFramework.wrap(client);
        this.requests = new ClientRequests(client, "Sharding");
        this.nodes = nodes;
        this.cache = cache;
        this.jobName = JobNodes.name(nodes.root());
        this.configuration = configuration;
        this.leader = leader;
        this.reshard = new Reshard(requests, nodes, configuration, strategies);
    }

    /** Raises the flag, or bumps its version if it is already up, so that a leader mid-reshard starts over. */
    public void requestReshard(String reason) {
        joined(requestReshardAsync(reason));
    }

    /** Completes on Curator's event thread. */
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

    public Assignment currentAssignment() {
        return currentVersioned().assignment();
    }

    /**
     * The assignment in force, from the local cache, with its node's version: a write that carries a {@code check} of
     * it is refused once a newer assignment was written.
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

    /** Read from ZooKeeper, waited for: an item's thread asks, when a start was refused for an outdated assignment. */
    public Versioned readVersioned() {
        Stat stat = new Stat();
        Assignment read = async.getData()
                .storingStatIn(stat)
                .forPath(nodes.assignment())
                .toCompletableFuture()
                .thenApply(Assignment::decode)
                .exceptionallyCompose(failure -> Answers.cause(failure) instanceof KeeperException.NoNodeException
                        ? CompletableFuture.completedFuture(Assignment.NONE)
                        : CompletableFuture.failedFuture(failure))
                .join();
        return new Versioned(read, read == Assignment.NONE ? -1 : stat.getVersion());
    }

    /** An assignment and the version of the node it was read from; -1 when there is none. */
    public record Versioned(Assignment assignment, int version) {}

    /** Read from ZooKeeper, waited for (a fire's thread asks); the cached one if newer or ZooKeeper cannot answer. */
    public Assignment readCurrentAssignment() {
        try {
            Assignment read = readVersioned().assignment();
            Assignment cachedNow = currentAssignment();
            return read.epoch() >= cachedNow.epoch() ? read : cachedNow;
        } catch (Exception ex) {
            return currentAssignment();
        }
    }

    /**
     * Why the cached state needs a reshard even though the flag is down: the count changed, an owner is gone, or a
     * sharding instance has no entry. Empty when the assignment matches.
     */
    public Optional<String> inconsistency() {
        Assignment assignment = currentAssignment();
        if (assignment.epoch() < reshard.lastWrittenEpoch()) {
            // This leader wrote a newer assignment that its cache has not caught up with: nothing to judge yet.
            return Optional.empty();
        }
        // The live instances that are neither disabled nor leaving, from the cache.
        Set<String> disabled = new HashSet<>(cache.children(nodes.disabledInstances()));
        disabled.addAll(cache.children(nodes.leavingInstances()));
        Set<String> sharding = cache.children(nodes.instances()).stream()
                .filter(instance -> !disabled.contains(instance))
                .collect(Collectors.toUnmodifiableSet());
        JobConfiguration config = configuration.get();
        int total = config.dynamicSharding() ? DynamicSharding.total(sharding.size()) : config.shardingTotalCount();
        if (assignment.shardingTotalCount() != total) {
            return Optional.of(
                    "shardingTotalCount is " + total + ", assignment was made for " + assignment.shardingTotalCount());
        }
        if (!sharding.equals(assignment.itemsByInstance().keySet())) {
            return Optional.of("instances " + sharding + " differ from the assigned "
                    + assignment.itemsByInstance().keySet());
        }
        return Optional.empty();
    }

    /**
     * On the leader, writes a new assignment if the flag is up, waiting for the answers (a fire that found the flag up
     * asks, on its own thread); empty when nothing was written.
     */
    public Optional<Assignment> reshardIfNecessary() {
        return joined(reshardIfNecessaryAsync());
    }

    /** The answer, waited for; a failure as the {@link RuntimeException} it completed with. */
    private static <T> T joined(CompletableFuture<T> answer) {
        try {
            return answer.join();
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
        return reshard.attempt()
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

    private record CachedAssignment(long mzxid, int version, Assignment assignment) {}
}
