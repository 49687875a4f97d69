package io.shardingjob.core.failover;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireRecord;
import io.shardingjob.core.execution.RunningMark;
import io.shardingjob.core.execution.RunningMarks;
import io.shardingjob.core.registry.JobCache;
import io.shardingjob.core.registry.JobNodes;
import io.shardingjob.core.sharding.Assignment;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the marks a dead instance left behind into orphans, and lets idle instances claim them.
 *
 * <p>Only the leader reclaims stale marks, so one instance decides; it re-reads each candidate from ZooKeeper before
 * acting, because its cache may not yet show that an instance re-registered. Any instance claims: a claim is one
 * multi-operation that deletes the queue entry at the version it saw, writes the claimer's running mark and records
 * the takeover, so two claimers can never both win an item and no lock round trips are needed. The takeover record
 * lets the original owner, if it comes back before the next reshard, skip the items taken from it; the reshard clears
 * the records.
 */
public final class FailoverService {

    private static final Logger log = LoggerFactory.getLogger(FailoverService.class);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final JobCache cache;

    private final RunningMarks marks;

    public FailoverService(CuratorFramework client, JobNodes nodes, JobCache cache, RunningMarks marks) {
        this.client = client;
        this.nodes = nodes;
        this.cache = cache;
        this.marks = marks;
    }

    /** The queued orphans, by item, from the cache. */
    public Map<Integer, Orphan> queue() {
        Map<Integer, Orphan> orphans = new TreeMap<>();
        for (String name : cache.children(nodes.failoverQueue())) {
            cache.node(nodes.failoverQueue() + "/" + name)
                    .ifPresent(node -> orphans.put(
                            Integer.parseInt(name),
                            new Orphan(
                                    Integer.parseInt(name),
                                    RunningMark.decode(node.getData()),
                                    node.getStat().getVersion())));
        }
        return orphans;
    }

    /** Item to the instance that took it over since the last reshard, from the cache. */
    public Map<Integer, String> owners() {
        Map<Integer, String> owners = new TreeMap<>();
        takeovers().forEach((item, takeover) -> owners.put(item, takeover.claimer()));
        return owners;
    }

    /**
     * The takeover records since the last reshard, from the cache. Each is three lines: the instance that took the
     * item over, the one it was taken from, and the fire it was taken over for.
     */
    public Map<Integer, Takeover> takeovers() {
        Map<Integer, Takeover> takeovers = new TreeMap<>();
        for (String name : cache.children(nodes.failoverOwners())) {
            cache.data(nodes.failoverOwners() + "/" + name).ifPresent(data -> {
                String[] lines = new String(data, StandardCharsets.UTF_8).split("\n");
                if (lines.length >= 3) {
                    takeovers.put(Integer.parseInt(name), new Takeover(lines[0], lines[1], Instant.parse(lines[2])));
                }
            });
        }
        return takeovers;
    }

    /** Who took an item over, from whom, for which fire. */
    public record Takeover(String claimer, String from, Instant fireTime) {}

    /**
     * On the leader: every mark whose session is gone becomes an orphan (failover on) or is dropped (failover off), and
     * every dead instance that missed fires since its last record gets its items queued once to make them up; all in
     * one multi-operation.
     *
     * @return the items queued or dropped
     */
    public List<Integer> reclaimStaleMarks(boolean failover, Assignment current) throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        Map<Integer, RunningMark> orphans = new TreeMap<>();
        for (Map.Entry<Integer, RunningMark> entry : marks.all().entrySet()) {
            if (marks.isLive(entry.getValue())) {
                continue;
            }
            int item = entry.getKey();
            Stat stat = new Stat();
            RunningMark mark;
            try {
                mark = RunningMark.decode(client.getData().storingStatIn(stat).forPath(nodes.runningItem(item)));
            } catch (KeeperException.NoNodeException gone) {
                continue;
            }
            if (isRegisteredSession(mark.instanceId(), mark.sessionId())) {
                continue;
            }
            ops.add(client.transactionOp()
                    .delete()
                    .withVersion(stat.getVersion())
                    .forPath(nodes.runningItem(item)));
            orphans.put(item, mark);
        }
        collectMissedFires(ops, orphans, current);
        List<Integer> items = new ArrayList<>(orphans.keySet());
        if (failover) {
            Map<Integer, Orphan> queued = queue();
            orphans.forEach((item, mark) -> {
                Orphan already = queued.get(item);
                if (already == null) {
                    ops.add(uncheckedCreate(nodes.failoverQueueItem(item), mark.encode()));
                } else if (mark.fireTime().isAfter(already.mark().fireTime())) {
                    // One orphan per item: missed fires coalesce into one run, for the latest of them (as misfires
                    // do), so a queued orphan of an older fire now stands for this later one.
                    ops.add(uncheckedSetData(nodes.failoverQueueItem(item), already.version(), mark.encode()));
                }
            });
        }
        if (!ops.isEmpty()) {
            client.transaction().forOperations(ops);
            if (!items.isEmpty()) {
                log.info(
                        "Job {}: items {} left unfinished by a dead instance {}",
                        JobNodes.name(nodes.root()),
                        items,
                        failover ? "queued for failover" : "dropped (failover is off)");
            }
        }
        return items;
    }

    /**
     * A dead instance misses every fire that still gave it items: the fires other instances started under epochs from
     * before the reshard that removed it, including fires of instances whose cache had not caught up yet. Its record
     * is kept (with the removal epoch and the latest fire made up) until every live instance fires under a newer
     * epoch, and each newer missed fire queues its items once more; missed fires in between coalesce into one run,
     * as misfires do.
     */
    private void collectMissedFires(List<CuratorOp> ops, Map<Integer, RunningMark> orphans, Assignment current)
            throws Exception {
        Map<String, RunningMarks.Versioned<FireRecord>> records = marks.fireRecords();
        Map<String, FireRecord> live = new TreeMap<>();
        records.forEach((name, record) -> {
            if (marks.registeredSession(JobNodes.fireRecordInstance(name))
                    .filter(session -> session == record.value().sessionId())
                    .isPresent()) {
                live.put(name, record.value());
            }
        });
        for (Map.Entry<String, RunningMarks.Versioned<FireRecord>> entry : records.entrySet()) {
            String name = entry.getKey();
            String instance = JobNodes.fireRecordInstance(name);
            FireRecord dead = entry.getValue().value();
            if (live.containsKey(name) || isRegisteredSession(instance, dead.sessionId())) {
                continue;
            }
            boolean stillAssigned = current.itemsByInstance().containsKey(instance);
            // The missed fires are of the items it owns now (while still assigned), not of those of its last fire.
            List<Integer> items = stillAssigned && dead.removedEpoch() == 0 ? current.itemsOf(instance) : dead.items();
            long removedEpoch = dead.removedEpoch() != 0 ? dead.removedEpoch() : stillAssigned ? 0 : current.epoch();
            Instant latest = live.values().stream()
                    .flatMap(record -> record.recent().stream())
                    .filter(fire -> removedEpoch == 0 || fire.epoch() < removedEpoch)
                    .map(FireRecord.Fire::fireTime)
                    .filter(fireTime -> fireTime.isAfter(dead.coveredUntil()))
                    .max(Instant::compareTo)
                    .orElse(dead.coveredUntil());
            if (latest.isAfter(dead.coveredUntil())) {
                RunningMark missed = new RunningMark(
                        instance,
                        dead.sessionId(),
                        dead.epoch(),
                        latest,
                        dead.shardingTotalCount(),
                        ExecutionSource.NORMAL);
                for (int item : items) {
                    orphans.merge(
                            item, missed, (left, right) -> left.fireTime().isAfter(right.fireTime()) ? left : right);
                }
                log.info(
                        "Job {}: instance {} died after its fire at {}; making up items {} for the fire at {}",
                        JobNodes.name(nodes.root()),
                        instance,
                        dead.fireTime(),
                        items,
                        latest);
            }
            boolean settled =
                    removedEpoch != 0 && live.values().stream().allMatch(record -> record.epoch() >= removedEpoch);
            String path = nodes.fires() + "/" + name;
            int version = entry.getValue().version();
            if (settled) {
                ops.add(client.transactionOp().delete().withVersion(version).forPath(path));
            } else if (removedEpoch != dead.removedEpoch()
                    || !latest.equals(dead.coveredUntil())
                    || !items.equals(dead.items())) {
                ops.add(client.transactionOp()
                        .setData()
                        .withVersion(version)
                        .forPath(
                                path,
                                dead.whileDead(items, removedEpoch, latest).encode()));
            }
        }
    }

    private boolean isRegisteredSession(String instanceId, long sessionId) throws Exception {
        Stat owner = client.checkExists().forPath(nodes.instance(instanceId));
        return owner != null && owner.getEphemeralOwner() == sessionId;
    }

    private CuratorOp uncheckedSetData(String path, int version, byte[] data) {
        try {
            return client.transactionOp().setData().withVersion(version).forPath(path, data);
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private CuratorOp uncheckedCreate(String path, byte[] data) {
        try {
            return client.transactionOp().create().forPath(path, data);
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Queues one item of one fire for failover; an orphan already queued for the item stays if it is for a later
     * fire, and is replaced if it is for an earlier one (missed fires coalesce to the latest).
     */
    public void enqueue(int item, RunningMark mark) throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            Stat stat = new Stat();
            try {
                RunningMark queued =
                        RunningMark.decode(client.getData().storingStatIn(stat).forPath(nodes.failoverQueueItem(item)));
                if (!mark.fireTime().isAfter(queued.fireTime())) {
                    return;
                }
                client.setData().withVersion(stat.getVersion()).forPath(nodes.failoverQueueItem(item), mark.encode());
                return;
            } catch (KeeperException.NoNodeException none) {
                try {
                    client.create().forPath(nodes.failoverQueueItem(item), mark.encode());
                    return;
                } catch (KeeperException.NodeExistsException raced) {
                    // Someone queued it meanwhile: compare again.
                }
            } catch (KeeperException.BadVersionException raced) {
                // Claimed or replaced meanwhile: look again.
            }
        }
    }

    /**
     * Hands this instance's own leftover marks (items it no longer runs: interrupted at shutdown or on a connection
     * loss) to failover, or drops them when failover is off. Called while the session that wrote them is alive.
     */
    public void releaseOwnMarks(String instanceId, long sessionId, Collection<Integer> stillRunning, boolean failover)
            throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        List<Integer> items = new ArrayList<>();
        // Read from ZooKeeper, not the cache: a mark this instance removed an instant ago must not be handed on.
        for (String name : client.getChildren().forPath(nodes.running())) {
            int item = Integer.parseInt(name);
            // Marks of an earlier session of ours are stale: the leader reclaims those.
            if (!stillRunning.contains(item) && handOverOps(ops, item, instanceId, sessionId, failover)) {
                items.add(item);
            }
        }
        if (!ops.isEmpty()) {
            client.transaction().forOperations(ops);
            log.info(
                    "Job {}: handed unfinished items {} {}",
                    JobNodes.name(nodes.root()),
                    items,
                    failover ? "to failover" : "back (failover is off)");
        }
    }

    /**
     * Hands one item this instance marked but will not start (a newer epoch moved it) to failover, so that it still
     * runs for its fire: the new owner may have planned the fire before it owned the item, and if it planned after,
     * it skipped the item because of this very mark.
     */
    public void handOver(int item, String instanceId, long sessionId, boolean failover) throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        if (!handOverOps(ops, item, instanceId, sessionId, failover)) {
            return;
        }
        client.transaction().forOperations(ops);
        log.info(
                "Job {}: item {} moved to a newer epoch before it started; handed {}",
                JobNodes.name(nodes.root()),
                item,
                failover ? "to failover for its fire" : "back");
    }

    /**
     * Adds the operations that move this session's mark of an item to the failover queue (or drop it, failover off),
     * read from ZooKeeper rather than the cache so that a mark removed an instant ago is never handed on.
     *
     * @return whether the item carried such a mark
     */
    private boolean handOverOps(List<CuratorOp> ops, int item, String instanceId, long sessionId, boolean failover)
            throws Exception {
        Stat stat = new Stat();
        RunningMark mark;
        try {
            mark = RunningMark.decode(client.getData().storingStatIn(stat).forPath(nodes.runningItem(item)));
        } catch (KeeperException.NoNodeException gone) {
            return false;
        }
        if (!mark.instanceId().equals(instanceId) || mark.sessionId() != sessionId) {
            return false;
        }
        ops.add(client.transactionOp().delete().withVersion(stat.getVersion()).forPath(nodes.runningItem(item)));
        if (failover && client.checkExists().forPath(nodes.failoverQueueItem(item)) == null) {
            ops.add(client.transactionOp().create().forPath(nodes.failoverQueueItem(item), mark.encode()));
        }
        return true;
    }

    /**
     * Claims up to {@code max} orphans for this instance.
     *
     * @return the orphans won; empty when there were none or others won them all
     */
    public List<Orphan> claim(int max, String instanceId, long sessionId) {
        List<Orphan> candidates = readQueue().stream().limit(max).toList();
        if (candidates.isEmpty()) {
            return List.of();
        }
        if (tryClaim(candidates, instanceId, sessionId)) {
            return candidates;
        }
        // Someone else won one of them: take what is left one by one.
        List<Orphan> won = new ArrayList<>();
        for (Orphan orphan : candidates) {
            if (tryClaim(List.of(orphan), instanceId, sessionId)) {
                won.add(orphan);
            }
        }
        return won;
    }

    /** How many orphans are queued, read from ZooKeeper: the cache may have seen only part of one multi-operation. */
    public int queuedCount() {
        try {
            return client.getChildren().forPath(nodes.failoverQueue()).size();
        } catch (Exception ex) {
            return queue().size();
        }
    }

    private List<Orphan> readQueue() {
        List<Orphan> orphans = new ArrayList<>();
        try {
            for (String name : client.getChildren().forPath(nodes.failoverQueue())) {
                Stat stat = new Stat();
                try {
                    byte[] data = client.getData().storingStatIn(stat).forPath(nodes.failoverQueue() + "/" + name);
                    orphans.add(new Orphan(Integer.parseInt(name), RunningMark.decode(data), stat.getVersion()));
                } catch (KeeperException.NoNodeException claimed) {
                    // Someone claimed it meanwhile.
                }
            }
        } catch (Exception ex) {
            log.warn("Job {}: could not read the failover queue: {}", JobNodes.name(nodes.root()), ex.toString());
        }
        orphans.sort(java.util.Comparator.comparingInt(Orphan::item));
        return orphans;
    }

    /** Failover was turned off: the queue and the takeover records go. */
    public void clearAll() throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        for (String item : cache.children(nodes.failoverQueue())) {
            ops.add(client.transactionOp().delete().forPath(nodes.failoverQueue() + "/" + item));
        }
        for (String item : cache.children(nodes.failoverOwners())) {
            ops.add(client.transactionOp().delete().forPath(nodes.failoverOwners() + "/" + item));
        }
        if (!ops.isEmpty()) {
            client.transaction().forOperations(ops);
            log.info("Job {}: failover is off, cleared its queue and takeover records", JobNodes.name(nodes.root()));
        }
    }

    /** Whether there is failover state to clear. */
    public boolean hasState() {
        return !cache.children(nodes.failoverQueue()).isEmpty()
                || !cache.children(nodes.failoverOwners()).isEmpty();
    }

    private boolean tryClaim(List<Orphan> orphans, String instanceId, long sessionId) {
        List<CuratorOp> ops = new ArrayList<>();
        try {
            for (Orphan orphan : orphans) {
                RunningMark dead = orphan.mark();
                RunningMark mine = new RunningMark(
                        instanceId,
                        sessionId,
                        dead.epoch(),
                        dead.fireTime(),
                        dead.shardingTotalCount(),
                        ExecutionSource.FAILOVER,
                        dead.retry());
                byte[] record = (instanceId + "\n" + dead.instanceId() + "\n" + dead.fireTime())
                        .getBytes(StandardCharsets.UTF_8);
                ops.add(client.transactionOp()
                        .delete()
                        .withVersion(orphan.version())
                        .forPath(nodes.failoverQueueItem(orphan.item())));
                ops.add(client.transactionOp().create().forPath(nodes.runningItem(orphan.item()), mine.encode()));
                boolean recorded = cache.node(nodes.failoverOwner(orphan.item()))
                        .map(ChildData::getStat)
                        .isPresent();
                ops.add(
                        recorded
                                ? client.transactionOp().setData().forPath(nodes.failoverOwner(orphan.item()), record)
                                : client.transactionOp().create().forPath(nodes.failoverOwner(orphan.item()), record));
            }
            client.transaction().forOperations(ops);
            return true;
        } catch (KeeperException.NoNodeException
                | KeeperException.NodeExistsException
                | KeeperException.BadVersionException lost) {
            return false;
        } catch (Exception ex) {
            log.warn("Job {}: claiming orphans failed: {}", JobNodes.name(nodes.root()), ex.toString());
            return false;
        }
    }
}
