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
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the marks a dead instance left behind, and the fires it missed, into orphans (one per item and fire), and lets
 * idle instances claim them.
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

    private static final Comparator<Orphan> OLDEST_FIRST =
            Comparator.comparing((Orphan orphan) -> orphan.mark().fireTime()).thenComparingInt(Orphan::item);

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

    /** The queued orphans from the cache, oldest fire first. */
    public List<Orphan> queue() {
        List<Orphan> orphans = new ArrayList<>();
        for (String name : cache.children(nodes.failoverQueue())) {
            String path = nodes.failoverQueue() + "/" + name;
            cache.node(path)
                    .ifPresent(node -> orphans.add(new Orphan(
                            path,
                            JobNodes.queuedItem(name),
                            RunningMark.decode(node.getData()),
                            node.getStat().getVersion())));
        }
        orphans.sort(OLDEST_FIRST);
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
     * every dead instance that missed fires since its last record gets its items queued for each of those fires; all in
     * one multi-operation.
     *
     * @return the items queued or dropped
     */
    public List<Integer> reclaimStaleMarks(
            boolean failover, Assignment current, LongFunction<Optional<Assignment>> epochs) throws Exception {
        List<CuratorOp> ops = new ArrayList<>();
        // By queue path: one orphan per item and fire.
        Map<String, Pending> orphans = new TreeMap<>();
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
            orphans.put(nodes.failoverQueueItem(item, mark.fireTime()), new Pending(item, mark));
        }
        collectMissedFires(ops, orphans, current, epochs);
        List<Integer> items =
                orphans.values().stream().map(Pending::item).distinct().sorted().toList();
        if (failover && !orphans.isEmpty()) {
            // Read from ZooKeeper: a create of a node that is already there would fail the whole multi-operation.
            Set<String> queued = new HashSet<>(client.getChildren().forPath(nodes.failoverQueue()));
            orphans.forEach((path, pending) -> {
                if (!queued.contains(JobNodes.name(path))) {
                    ops.add(uncheckedCreate(path, pending.mark().encode()));
                }
            });
        }
        if (!ops.isEmpty()) {
            client.transaction().forOperations(ops);
            if (!items.isEmpty()) {
                log.info(
                        "Job {}: {} runs of items {} left undone by a dead instance {}",
                        JobNodes.name(nodes.root()),
                        orphans.size(),
                        items,
                        failover ? "queued for failover" : "dropped (failover is off)");
            }
        }
        return items;
    }

    /** An item of a fire to queue. */
    private record Pending(int item, RunningMark mark) {}

    /**
     * A dead instance misses every fire that still gave it items: the fires other instances started under epochs from
     * before the reshard that removed it, including fires of instances whose cache had not caught up yet. Its record
     * is kept (with the removal epoch and the latest fire made up) until every live instance fires under a newer
     * epoch, and each missed fire queues its items, once per fire: every item of every fire runs.
     */
    private void collectMissedFires(
            List<CuratorOp> ops,
            Map<String, Pending> orphans,
            Assignment current,
            LongFunction<Optional<Assignment>> epochs)
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
            // Each missed fire with the epochs the survivors planned it under: the dead instance's items of that fire
            // are its items under those epochs, not the ones it owns now.
            TreeMap<Instant, Set<Long>> missedFires = new TreeMap<>();
            live.values().stream()
                    .flatMap(record -> record.recent().stream())
                    .filter(fire -> removedEpoch == 0 || fire.epoch() < removedEpoch)
                    .filter(fire -> fire.fireTime().isAfter(dead.coveredUntil()))
                    .forEach(fire -> missedFires
                            .computeIfAbsent(fire.fireTime(), time -> new HashSet<>())
                            .add(fire.epoch()));
            Instant latest = missedFires.isEmpty() ? dead.coveredUntil() : missedFires.lastKey();
            missedFires.forEach((fireTime, fireEpochs) -> {
                Set<Integer> itemsOfFire = new TreeSet<>();
                for (long epoch : fireEpochs) {
                    itemsOfFire.addAll(epochs.apply(epoch)
                            .map(assignment -> assignment.itemsOf(instance))
                            .orElse(epoch == dead.epoch() ? dead.items() : items));
                }
                for (int item : itemsOfFire) {
                    RunningMark missed = new RunningMark(
                            instance,
                            dead.sessionId(),
                            fireEpochs.stream().max(Long::compare).orElse(dead.epoch()),
                            fireTime,
                            dead.shardingTotalCount(),
                            ExecutionSource.NORMAL);
                    orphans.putIfAbsent(nodes.failoverQueueItem(item, fireTime), new Pending(item, missed));
                }
            });
            if (!missedFires.isEmpty()) {
                log.info(
                        "Job {}: instance {} died after its fire at {}; making up items {} for {} fires, {} to {}",
                        JobNodes.name(nodes.root()),
                        instance,
                        dead.fireTime(),
                        items,
                        missedFires.size(),
                        missedFires.firstKey(),
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

    private CuratorOp uncheckedCreate(String path, byte[] data) {
        try {
            return client.transactionOp().create().forPath(path, data);
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** Queues one item of one fire for failover, unless it is queued already. */
    public void enqueue(int item, RunningMark mark) throws Exception {
        try {
            client.create().forPath(nodes.failoverQueueItem(item, mark.fireTime()), mark.encode());
            log.info(
                    "Job {}: item {} of the fire at {} queued for failover",
                    JobNodes.name(nodes.root()),
                    item,
                    mark.fireTime());
        } catch (KeeperException.NodeExistsException queued) {
            // Already queued for that fire.
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
        String orphan = nodes.failoverQueueItem(item, mark.fireTime());
        if (failover && client.checkExists().forPath(orphan) == null) {
            ops.add(client.transactionOp().create().forPath(orphan, mark.encode()));
        }
        return true;
    }

    /**
     * Claims up to {@code max} orphans for this instance: the oldest fire of each item that is not running anywhere,
     * so that the fires of one item run one after another, oldest first.
     *
     * @return the orphans won; empty when there were none or others won them all
     */
    public List<Orphan> claim(int max, String instanceId, long sessionId) {
        Set<Integer> running = marks.all().keySet();
        Set<Integer> seen = new HashSet<>();
        List<Orphan> candidates = readQueue().stream()
                .filter(orphan -> seen.add(orphan.item()) && !running.contains(orphan.item()))
                .limit(max)
                .toList();
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
                    String path = nodes.failoverQueue() + "/" + name;
                    byte[] data = client.getData().storingStatIn(stat).forPath(path);
                    orphans.add(
                            new Orphan(path, JobNodes.queuedItem(name), RunningMark.decode(data), stat.getVersion()));
                } catch (KeeperException.NoNodeException claimed) {
                    // Someone claimed it meanwhile.
                }
            }
        } catch (Exception ex) {
            log.warn("Job {}: could not read the failover queue: {}", JobNodes.name(nodes.root()), ex.toString());
        }
        orphans.sort(OLDEST_FIRST);
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
                        .forPath(orphan.path()));
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
