package io.shardingjob.core.internal.election;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this instance leads its job, and the news of it. The leader's instance id goes in an ephemeral node, {@code
 * /{job}/leader/election/instance}, which every instance reads from its cache to tell who leads: advisory, since
 * decisions use {@link LeaderElection#isLeader()}. A change is published first (the node written, or removed if still
 * ours) and then told to the job on its executor, so that a new leader acts once the others can read who leads, all
 * without waiting for ZooKeeper on a thread. Each change starts a term: a publication still on its way when its term
 * ended writes nothing.
 */
final class Leadership {

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);
    private final AsyncCuratorFramework async;
    private final ClientRequests requests;
    private final JobNodes nodes;
    private final String instanceId;
    private final Executor executor;
    private final Consumer<Boolean> onChange;
    private volatile boolean leader;

    /** Guarded by this. */
    private long term;

    Leadership(
            CuratorFramework client,
            ClientRequests requests,
            JobNodes nodes,
            String instanceId,
            Executor executor,
            Consumer<Boolean> onChange) {
        this.async = AsyncCuratorFramework.wrap(client);
        this.requests = requests;
        this.nodes = nodes;
        this.instanceId = instanceId;
        this.executor = executor;
        this.onChange = onChange;
    }

    boolean isLeader() {
        return leader;
    }

    /** Tells the change on the executor once the id node is written or removed. */
    synchronized void set(boolean leads) {
        if (leader == leads) {
            return;
        }
        leader = leads;
        long now = ++term;
        if (leads) {
            tell(() -> publish(() -> leadsIn(now), 1).whenComplete((published, failure) -> onChange.accept(true)));
        } else {
            tell(() -> remove().whenComplete((removed, failure) -> onChange.accept(false)));
        }
    }

    private synchronized boolean leadsIn(long leadership) {
        return leader && term == leadership;
    }

    private void tell(Runnable change) {
        try {
            executor.execute(change);
        } catch (RejectedExecutionException stopping) {
            // The job is closing: its id node goes now all the same.
            change.run();
        }
    }

    /**
     * Writes the leader's id node, without waiting for ZooKeeper on a thread: a node left by a previous leader whose
     * session has not expired yet is removed first, at the version read, and the create tried again.
     */
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

    /**
     * Deletes the leader's id node if it is still this instance's, without waiting for ZooKeeper on a thread. Not a
     * guaranteed delete: Curator sends one again without its version once its retries are spent, which could remove the
     * next leader's node; a removal lost with the connection leaves the node to the next leader's publication.
     */
    private CompletableFuture<Void> remove() {
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
