package io.shardingjob.core.execution;

import io.shardingjob.core.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a {@link FireCompletionListener} once per fire across the cluster, without Elastic-Job's distribute-once
 * listener's waits: nobody waits for anybody, membership changes do not matter, and a crash does not lose the call.
 *
 * <p>Whoever ends an item of a fire (its owner, or the instance that took it over) records it under
 * {@code /{job}/completions/{fire}/items}. Whoever records the last one claims the call with an ephemeral node, calls
 * the listener, and then, in one multi-operation, writes {@code done} and drops the claim. Two instances ending the
 * last items at once race on the claim, and the loser sees {@code done} or the claim and stays silent. If the claimer
 * dies before {@code done} is written, its claim vanishes with its session and the leader's periodic check calls the
 * listener elsewhere: the call happens at least once, and twice only if the claimer dies between the call and
 * {@code done}.
 *
 * <p>A fire never completes if one of its items never ends for it: a dead owner's item with failover off, or several
 * missed fires folded into one misfire run (the latest fire completes). Such records are dropped a day after their fire
 * time, by the given clock; the last sixteen completed fires are kept for operators.
 */
public final class FireCompletions {

    private static final Logger log = LoggerFactory.getLogger(FireCompletions.class);

    private static final int KEEP_COMPLETED = 16;

    private static final Duration KEEP_UNFINISHED = Duration.ofDays(1);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final String instanceId;

    private final FireCompletionListener listener;

    private final Clock clock;

    public FireCompletions(
            CuratorFramework client, JobNodes nodes, String instanceId, FireCompletionListener listener, Clock clock) {
        this.client = client;
        this.nodes = nodes;
        this.instanceId = instanceId;
        this.listener = listener;
        this.clock = clock;
    }

    /** Records how an item of a fire ended here and, when it was the last one, calls the listener. Never throws. */
    public void itemEnded(Instant fireTime, int item, int total, FireCompletion.Outcome outcome) {
        String items = nodes.completion(fireTime) + "/items";
        byte[] data = ("outcome=" + outcome + "\ninstance=" + instanceId + "\ntotal=" + total + "\n")
                .getBytes(StandardCharsets.UTF_8);
        try {
            client.create().orSetData().creatingParentsIfNeeded().forPath(items + "/" + item, data);
            // Only count here (one round trip); the records are read by whoever completes the fire.
            if (client.getChildren().forPath(items).size() >= total) {
                completeIfAllEnded(fireTime);
            }
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not record the end of item {} of the fire at {}: {}",
                    JobNodes.name(nodes.root()),
                    item,
                    fireTime,
                    ex.toString());
        }
    }

    /** On the leader: calls the listener for fires whose claimer died, and forgets fires unfinished for a day. */
    public void reconcile() {
        Instant now = clock.instant();
        try {
            List<Long> fires = new ArrayList<>();
            for (String name : client.getChildren().forPath(nodes.completions())) {
                fires.add(Long.parseLong(name));
            }
            fires.sort(null);
            List<Long> completed = new ArrayList<>();
            for (long fire : fires) {
                Instant fireTime = Instant.ofEpochMilli(fire);
                String path = nodes.completion(fireTime);
                if (client.checkExists().forPath(path + "/done") != null) {
                    completed.add(fire);
                } else if (fireTime.isBefore(now.minus(KEEP_UNFINISHED))) {
                    client.delete().quietly().deletingChildrenIfNeeded().forPath(path);
                } else if (client.checkExists().forPath(path + "/claim") == null) {
                    completeIfAllEnded(fireTime);
                }
            }
            for (int i = 0; i < completed.size() - KEEP_COMPLETED; i++) {
                client.delete()
                        .quietly()
                        .deletingChildrenIfNeeded()
                        .forPath(nodes.completion(Instant.ofEpochMilli(completed.get(i))));
            }
        } catch (Exception ex) {
            log.warn("Job {}: could not check fire completions: {}", JobNodes.name(nodes.root()), ex.toString());
        }
    }

    private void completeIfAllEnded(Instant fireTime) throws Exception {
        String path = nodes.completion(fireTime);
        Map<Integer, FireCompletion.ItemEnd> items = new TreeMap<>();
        int total = 0;
        for (String name : client.getChildren().forPath(path + "/items")) {
            try {
                Map<String, String> fields = KeyValueText.parse(client.getData().forPath(path + "/items/" + name));
                total = Integer.parseInt(fields.get("total"));
                items.put(
                        Integer.parseInt(name),
                        new FireCompletion.ItemEnd(
                                fields.get("instance"), FireCompletion.Outcome.valueOf(fields.get("outcome"))));
            } catch (KeeperException.NoNodeException forgotten) {
                return;
            }
        }
        if (total == 0 || items.size() < total || client.checkExists().forPath(path + "/done") != null) {
            return;
        }
        try {
            client.create()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path + "/claim", instanceId.getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NodeExistsException someoneElse) {
            return;
        }
        boolean committed = false;
        try {
            // Re-checked under the claim: another instance may have completed the fire between our check and claim.
            if (client.checkExists().forPath(path + "/done") != null) {
                return;
            }
            FireCompletion completion = new FireCompletion(JobNodes.name(nodes.root()), fireTime, total, items);
            try {
                listener.fireCompleted(completion);
            } catch (RuntimeException ex) {
                log.warn("Job {}: the fire completion listener failed", completion.jobName(), ex);
            }
            client.transaction()
                    .forOperations(
                            client.transactionOp()
                                    .create()
                                    .forPath(path + "/done", instanceId.getBytes(StandardCharsets.UTF_8)),
                            client.transactionOp().delete().forPath(path + "/claim"));
            committed = true;
        } finally {
            if (!committed) {
                dropOwnClaim(path + "/claim");
            }
        }
    }

    /** Drops the claim only while it is still this session's: after an expiry it may already be another instance's. */
    private void dropOwnClaim(String claim) {
        try {
            Stat stat = client.checkExists().forPath(claim);
            if (stat != null
                    && stat.getEphemeralOwner()
                            == client.getZookeeperClient().getZooKeeper().getSessionId()) {
                client.delete().withVersion(stat.getVersion()).forPath(claim);
            }
        } catch (Exception ex) {
            // Its session ends it, or the leader's check finds the fire unclaimed later.
            log.debug("Job {}: could not drop the claim {}: {}", JobNodes.name(nodes.root()), claim, ex.toString());
        }
    }
}
