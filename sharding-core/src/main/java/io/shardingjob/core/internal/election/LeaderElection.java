package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.Answers;
import io.shardingjob.core.internal.registry.JobNodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.curator.x.async.api.CreateOption;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Elects one leader per job with Curator's {@link LeaderLatch} and publishes the leader's instance id in an ephemeral
 * node that every instance reads from its cache; nobody polls to learn who leads.
 *
 * <p>An instance joins when it starts and leaves when it is disabled or closes, so that only live, enabled instances
 * lead. The latch gives up leadership on its own when the connection is suspended and takes part again after a
 * reconnect. Race window: between the latch granting leadership and the id node being written, readers still see the
 * previous leader (or none); the id node is advisory, decisions use {@link #isLeader()}.
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

    private final CuratorFramework client;

    private final AsyncCuratorFramework async;

    private final JobNodes nodes;

    private final String instanceId;

    private final Executor executor;

    private final Consumer<Boolean> onLeadershipChange;

    private @Nullable LeaderLatch latch;

    public LeaderElection(
            CuratorFramework client,
            JobNodes nodes,
            String instanceId,
            Executor executor,
            Consumer<Boolean> onLeadershipChange) {
        this.client = client;
        this.async = AsyncCuratorFramework.wrap(client);
        this.nodes = nodes;
        this.instanceId = instanceId;
        this.executor = executor;
        this.onLeadershipChange = onLeadershipChange;
    }

    /** Takes part in the election; does nothing if already taking part. */
    public synchronized void join() {
        if (latch != null) {
            return;
        }
        LeaderLatch joined = new LeaderLatch(client, nodes.leaderLatch(), instanceId);
        joined.addListener(
                new LeaderLatchListener() {
                    @Override
                    public void isLeader() {
                        publishLeader(joined, 1).whenComplete((published, failure) -> onLeadershipChange.accept(true));
                    }

                    @Override
                    public void notLeader() {
                        unpublishLeader().whenComplete((removed, failure) -> onLeadershipChange.accept(false));
                    }
                },
                executor);
        try {
            joined.start();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not join the leader election of " + nodes.root(), ex);
        }
        latch = joined;
    }

    /** Stops taking part; a leader hands over to the next participant at once. */
    public synchronized void leave() {
        LeaderLatch left = latch;
        latch = null;
        if (left == null) {
            return;
        }
        boolean wasLeader = left.hasLeadership();
        try {
            left.close(LeaderLatch.CloseMode.SILENT);
        } catch (IOException ex) {
            log.warn("Closing the leader latch of {} failed: {}", nodes.root(), ex.toString());
        }
        if (wasLeader) {
            unpublishLeader().whenComplete((removed, failure) -> onLeadershipChange.accept(false));
        }
    }

    public synchronized boolean isLeader() {
        return latch != null && latch.hasLeadership();
    }

    @Override
    public void close() {
        leave();
    }

    /**
     * Writes the leader's id node, without waiting for ZooKeeper on a thread: a node left by a previous leader whose
     * session has not expired yet is removed first, at the version read, and the create tried again.
     */
    private CompletableFuture<Void> publishLeader(LeaderLatch owner, int attempt) {
        if (attempt > 5 || !owner.hasLeadership()) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] id = instanceId.getBytes(StandardCharsets.UTF_8);
        String path = nodes.leaderInstance();
        return async.create()
                .withOptions(EnumSet.of(CreateOption.createParentsIfNeeded), CreateMode.EPHEMERAL)
                .forPath(path, id)
                .toCompletableFuture()
                .handle((created, failure) -> {
                    if (failure == null) {
                        log.info(
                                "Instance {} leads job {}",
                                instanceId,
                                nodes.root().substring(1));
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (Answers.cause(failure) instanceof KeeperException.NodeExistsException) {
                        return removeStaleLeaderNode(path).thenCompose(removed -> publishLeader(owner, attempt + 1));
                    }
                    log.warn(
                            "Could not publish the leader of {}: {}",
                            nodes.root(),
                            Answers.cause(failure).toString());
                    return CompletableFuture.<Void>completedFuture(null);
                })
                .thenCompose(published -> published);
    }

    /** A node left by a previous leader whose session has not yet expired; ours if we wrote it earlier. */
    private CompletableFuture<Void> removeStaleLeaderNode(String path) {
        Stat stat = new Stat();
        return async.getData()
                .storingStatIn(stat)
                .forPath(path)
                .thenCompose(
                        data -> async.delete().withVersion(stat.getVersion()).forPath(path))
                .toCompletableFuture()
                .exceptionally(failure -> {
                    // NoNode or BadVersion: someone else removed or replaced it; the next attempt sees the current
                    // state.
                    if (!(Answers.cause(failure) instanceof KeeperException.NoNodeException)
                            && !(Answers.cause(failure) instanceof KeeperException.BadVersionException)) {
                        log.warn(
                                "Could not remove the stale leader node of {}: {}",
                                nodes.root(),
                                Answers.cause(failure).toString());
                    }
                    return null;
                });
    }

    /** Deletes the leader's id node if it is still this instance's, without waiting for ZooKeeper on a thread. */
    private CompletableFuture<Void> unpublishLeader() {
        Stat stat = new Stat();
        String path = nodes.leaderInstance();
        return async.getData()
                .storingStatIn(stat)
                .forPath(path)
                .thenCompose(current -> instanceId.equals(new String(current, StandardCharsets.UTF_8))
                        ? async.delete().withVersion(stat.getVersion()).forPath(path)
                        : CompletableFuture.<Void>completedFuture(null))
                .toCompletableFuture()
                .exceptionally(failure -> {
                    // NoNode or BadVersion: already replaced by the next leader.
                    log.debug(
                            "Could not remove the leader node of {}: {}",
                            nodes.root(),
                            Answers.cause(failure).toString());
                    return null;
                });
    }
}
