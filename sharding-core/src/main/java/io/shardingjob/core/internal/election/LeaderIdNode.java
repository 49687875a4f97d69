package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.Answers;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's instance id in an ephemeral node, {@code /{job}/leader/election/instance}, which every instance reads
 * from its cache to tell who leads: advisory, written once the election decided and removed when this instance stops
 * leading. Decisions use {@link LeaderElection#isLeader()}, never this node.
 */
final class LeaderIdNode {

    private static final Logger log = LoggerFactory.getLogger(LeaderIdNode.class);

    private final AsyncCuratorFramework async;

    private final ClientRequests requests;

    private final JobNodes nodes;

    private final String instanceId;

    LeaderIdNode(CuratorFramework client, ClientRequests requests, JobNodes nodes, String instanceId) {
        this.async = AsyncCuratorFramework.wrap(client);
        this.requests = requests;
        this.nodes = nodes;
        this.instanceId = instanceId;
    }

    /**
     * Writes the leader's id node, without waiting for ZooKeeper on a thread: a node left by a previous leader whose
     * session has not expired yet is removed first, at the version read, and the create tried again.
     */
    CompletableFuture<Void> publish(BooleanSupplier stillLeads) {
        return publish(stillLeads, 1);
    }

    private CompletableFuture<Void> publish(BooleanSupplier stillLeads, int attempt) {
        if (attempt > 5 || !stillLeads.getAsBoolean()) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] id = instanceId.getBytes(StandardCharsets.UTF_8);
        String path = nodes.leaderInstance();
        return requests.multiAsync("Publish", List.of(requests.create(path, id, CreateMode.EPHEMERAL)))
                .handle((answer, failure) -> {
                    KeeperException.Code code =
                            failure != null ? KeeperException.Code.CONNECTIONLOSS : answer.refusal();
                    if (code == KeeperException.Code.OK) {
                        log.info("Instance {} leads job {}", instanceId, JobNodes.name(nodes.root()));
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (code == KeeperException.Code.NODEEXISTS) {
                        return removeStaleLeaderNode(path).thenCompose(removed -> publish(stillLeads, attempt + 1));
                    }
                    log.warn(
                            "Could not publish the leader of {}: {}",
                            nodes.root(),
                            failure != null ? Answers.cause(failure).toString() : code.toString());
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
    CompletableFuture<Void> remove() {
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
