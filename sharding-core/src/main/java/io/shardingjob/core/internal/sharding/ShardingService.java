package io.shardingjob.core.internal.sharding;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
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
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
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

    private final JobNodes nodes;

    private final JobCache cache;

    private final String jobName;

    private final Supplier<JobConfiguration> configuration;

    private final Function<String, ShardingStrategy> strategies;

    private final BooleanSupplier leader;

    private final Object reshardLock = new Object();

    private volatile CachedAssignment cached = new CachedAssignment(-1, Assignment.NONE);

    private volatile long lastWrittenEpoch;

    public ShardingService(
            CuratorFramework client,
            JobNodes nodes,
            JobCache cache,
            Supplier<JobConfiguration> configuration,
            Function<String, ShardingStrategy> strategies,
            BooleanSupplier leader) {
        this.client = client;
        this.nodes = nodes;
        this.cache = cache;
        this.jobName = JobNodes.name(nodes.root());
        this.configuration = configuration;
        this.strategies = strategies;
        this.leader = leader;
    }

    /** Raises the flag, or bumps its version if it is already up, so that a leader mid-reshard starts over. */
    public void requestReshard(String reason) {
        byte[] data = reason.getBytes(StandardCharsets.UTF_8);
        for (int attempt = 1; ; attempt++) {
            try {
                client.create().orSetData().creatingParentsIfNeeded().forPath(nodes.reshardNecessary(), data);
                log.debug("Job {}: reshard requested ({})", jobName, reason);
                return;
            } catch (KeeperException.NoNodeException clearedMeanwhile) {
                // The leader cleared the flag between our create and set: raise it again.
                if (attempt == MAX_ATTEMPTS) {
                    throw new IllegalStateException(
                            "Job '" + jobName + "': could not request a reshard", clearedMeanwhile);
                }
            } catch (Exception ex) {
                throw new IllegalStateException("Job '" + jobName + "': could not request a reshard", ex);
            }
        }
    }

    public boolean isReshardPending() {
        return cache.exists(nodes.reshardNecessary());
    }

    /** The assignment in force, from the local cache. */
    public Assignment currentAssignment() {
        Optional<ChildData> node = cache.node(nodes.assignment());
        if (node.isEmpty()) {
            return Assignment.NONE;
        }
        CachedAssignment current = cached;
        long modified = node.get().getStat().getMzxid();
        if (current.mzxid != modified) {
            current =
                    new CachedAssignment(modified, Assignment.decode(node.get().getData()));
            cached = current;
        }
        return current.assignment;
    }

    /** The assignment in force, read from ZooKeeper (one round trip); the cached one if ZooKeeper cannot answer. */
    public Assignment readCurrentAssignment() {
        try {
            Stat stat = new Stat();
            Assignment read = readAssignment(stat);
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
     * On the leader, writes a new assignment if the flag is up; elsewhere does nothing.
     *
     * @return the new assignment, or empty when nothing was written
     */
    public Optional<Assignment> reshardIfNecessary() {
        synchronized (reshardLock) {
            for (int attempt = 1; attempt <= MAX_ATTEMPTS && leader.getAsBoolean(); attempt++) {
                try {
                    return reshardOnce();
                } catch (KeeperException.BadVersionException
                        | KeeperException.NoNodeException
                        | KeeperException.NodeExistsException raced) {
                    log.debug(
                            "Job {}: reshard attempt {} raced with another change ({}), retrying",
                            jobName,
                            attempt,
                            raced.code());
                } catch (Exception ex) {
                    throw new IllegalStateException("Job '" + jobName + "': reshard failed", ex);
                }
            }
            return Optional.empty();
        }
    }

    private Optional<Assignment> reshardOnce() throws Exception {
        Stat flag = client.checkExists().forPath(nodes.reshardNecessary());
        if (flag == null) {
            return Optional.empty();
        }
        client.create()
                .orSetData()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(nodes.reshardProcessing());
        boolean committed = false;
        try {
            JobConfiguration config = readConfiguration();
            List<String> instances = readShardingInstances();
            Stat assignmentStat = new Stat();
            Assignment previous = readAssignment(assignmentStat);
            Assignment next = compute(config, instances, previous);
            List<CuratorOp> ops = new ArrayList<>();
            boolean unchanged = previous.shardingTotalCount() == next.shardingTotalCount()
                    && previous.itemsByInstance().equals(next.itemsByInstance());
            if (unchanged) {
                // Nothing moves (a member re-registered, say): keep the epoch so that no running item is fenced off.
                next = previous;
                ops.add(client.transactionOp()
                        .check()
                        .withVersion(assignmentStat.getVersion())
                        .forPath(nodes.assignment()));
            } else if (previous == Assignment.NONE) {
                ops.add(client.transactionOp().create().forPath(nodes.assignment(), next.encode()));
            } else {
                ops.add(client.transactionOp()
                        .setData()
                        .withVersion(assignmentStat.getVersion())
                        .forPath(nodes.assignment(), next.encode()));
            }
            ops.add(client.transactionOp()
                    .delete()
                    .withVersion(flag.getVersion())
                    .forPath(nodes.reshardNecessary()));
            ops.add(client.transactionOp().delete().forPath(nodes.reshardProcessing()));
            for (String item : client.getChildren().forPath(nodes.disabledItems())) {
                if (Integer.parseInt(item) >= next.shardingTotalCount()) {
                    ops.add(client.transactionOp().delete().forPath(nodes.disabledItems() + "/" + item));
                }
            }
            client.transaction().forOperations(ops);
            committed = true;
            lastWrittenEpoch = next.epoch();
            if (unchanged) {
                log.debug("Job {}: reshard flag cleared, epoch {} still in force", jobName, next.epoch());
                return Optional.empty();
            }
            log.info(
                    "Job {}: epoch {} assigns {} items with strategy '{}': {}",
                    jobName,
                    next.epoch(),
                    next.shardingTotalCount(),
                    config.dynamicSharding() ? "dynamic" : config.strategy(),
                    next.itemsByInstance());
            return Optional.of(next);
        } finally {
            if (!committed) {
                client.delete().quietly().forPath(nodes.reshardProcessing());
            }
        }
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

    private JobConfiguration readConfiguration() {
        // The shared configuration may have changed an instant ago; the cached one is the fallback if it is invalid.
        try {
            byte[] data = client.getData().forPath(nodes.config());
            return io.shardingjob.core.config.JobConfigurationCodec.decode(jobName, data);
        } catch (Exception ex) {
            return configuration.get();
        }
    }

    private List<String> readShardingInstances() throws Exception {
        List<String> live = new ArrayList<>(client.getChildren().forPath(nodes.instances()));
        live.removeAll(client.getChildren().forPath(nodes.disabledInstances()));
        live.removeAll(client.getChildren().forPath(nodes.leavingInstances()));
        live.sort(null);
        return live;
    }

    private Assignment readAssignment(Stat stat) throws Exception {
        try {
            return Assignment.decode(client.getData().storingStatIn(stat).forPath(nodes.assignment()));
        } catch (KeeperException.NoNodeException none) {
            return Assignment.NONE;
        }
    }

    private record CachedAssignment(long mzxid, Assignment assignment) {}
}
