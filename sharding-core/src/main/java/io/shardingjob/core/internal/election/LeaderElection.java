package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.JobNodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
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
                        publishLeader(joined);
                        onLeadershipChange.accept(true);
                    }

                    @Override
                    public void notLeader() {
                        unpublishLeader();
                        onLeadershipChange.accept(false);
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
            unpublishLeader();
            onLeadershipChange.accept(false);
        }
    }

    public synchronized boolean isLeader() {
        return latch != null && latch.hasLeadership();
    }

    @Override
    public void close() {
        leave();
    }

    private void publishLeader(LeaderLatch owner) {
        byte[] id = instanceId.getBytes(StandardCharsets.UTF_8);
        String path = nodes.leaderInstance();
        for (int attempt = 0; attempt < 5 && owner.hasLeadership(); attempt++) {
            try {
                client.create()
                        .creatingParentsIfNeeded()
                        .withMode(CreateMode.EPHEMERAL)
                        .forPath(path, id);
                log.info("Instance {} leads job {}", instanceId, nodes.root().substring(1));
                return;
            } catch (KeeperException.NodeExistsException exists) {
                removeStaleLeaderNode(path);
            } catch (Exception ex) {
                log.warn("Could not publish the leader of {}", nodes.root(), ex);
                return;
            }
        }
    }

    /** A node left by a previous leader whose session has not yet expired; ours if we wrote it earlier. */
    private void removeStaleLeaderNode(String path) {
        try {
            Stat stat = new Stat();
            client.getData().storingStatIn(stat).forPath(path);
            client.delete().withVersion(stat.getVersion()).forPath(path);
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            // Someone else removed or replaced it; the next attempt sees the current state.
        } catch (Exception ex) {
            log.warn("Could not remove the stale leader node of {}", nodes.root(), ex);
        }
    }

    private void unpublishLeader() {
        try {
            Stat stat = new Stat();
            byte[] current = client.getData().storingStatIn(stat).forPath(nodes.leaderInstance());
            if (instanceId.equals(new String(current, StandardCharsets.UTF_8))) {
                client.delete().withVersion(stat.getVersion()).forPath(nodes.leaderInstance());
            }
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
            // Already replaced by the next leader.
        } catch (Exception ex) {
            log.debug("Could not remove the leader node of {}", nodes.root(), ex);
        }
    }
}
