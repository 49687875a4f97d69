package io.shardingjob.core.execution;

import io.shardingjob.core.registry.JobCache;
import io.shardingjob.core.registry.JobNodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code /{job}/running/{item}} marks. An instance marks all its items of a fire in one multi-operation before the
 * first starts, and removes each mark when its item completes, so that at any moment the marks are exactly the items
 * planned or running and not yet completed. Items completing at the same time have their marks removed together, in
 * one multi-operation per round trip, so a fire costs a few writes rather than one per item. A mark is <em>live</em>
 * while its session is still the registered session of its instance; a mark whose session is gone is an orphan left
 * by a crash.
 */
public final class RunningMarks {

    private static final Logger log = LoggerFactory.getLogger(RunningMarks.class);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final JobCache cache;

    private final MarkRemovals removals;

    public RunningMarks(CuratorFramework client, JobNodes nodes, JobCache cache) {
        this.client = client;
        this.nodes = nodes;
        this.cache = cache;
        this.removals = new MarkRemovals(client, nodes);
    }

    /** Every mark, by item, from the cache. */
    public Map<Integer, RunningMark> all() {
        Map<Integer, RunningMark> marks = new TreeMap<>();
        for (String name : cache.children(nodes.running())) {
            cache.data(nodes.running() + "/" + name).ifPresent(data -> {
                try {
                    marks.put(Integer.parseInt(name), RunningMark.decode(data));
                } catch (IllegalArgumentException ex) {
                    log.warn("Job {}: ignoring unreadable running mark {}", nodes.root(), name);
                }
            });
        }
        return marks;
    }

    /** Whether the mark's session is still its instance's registered session, as far as the cache knows. */
    public boolean isLive(RunningMark mark) {
        return registeredSession(mark.instanceId())
                .filter(session -> session == mark.sessionId())
                .isPresent();
    }

    /** The session of an instance's registration node, from the cache. */
    public Optional<Long> registeredSession(String instanceId) {
        return cache.node(nodes.instance(instanceId)).map(ChildData::getStat).map(stat -> stat.getEphemeralOwner());
    }

    /**
     * Marks the items, all in one multi-operation when none is marked yet.
     *
     * @return the items now marked by this call; an item someone else marked meanwhile is left out
     */
    public List<Integer> mark(List<Integer> items, RunningMark mark) throws Exception {
        if (items.isEmpty()) {
            return items;
        }
        byte[] data = mark.encode();
        List<CuratorOp> ops = new ArrayList<>(items.size());
        for (int item : items) {
            ops.add(client.transactionOp().create().forPath(nodes.runningItem(item), data));
        }
        try {
            client.transaction().forOperations(ops);
            return items;
        } catch (KeeperException.NodeExistsException someoneElse) {
            // The cache lagged behind another instance's mark; fall back to marking item by item.
            List<Integer> marked = new ArrayList<>();
            for (int item : items) {
                try {
                    client.create().forPath(nodes.runningItem(item), data);
                    marked.add(item);
                } catch (KeeperException.NodeExistsException taken) {
                    log.debug("Job {}: item {} is marked by someone else", nodes.root(), item);
                }
            }
            return marked;
        }
    }

    /** Records the fire this instance is starting, so that fires it misses after dying can be made up. */
    public void recordFire(String instanceId, FireRecord record) {
        try {
            client.create().orSetData().forPath(nodes.fire(instanceId, record.sessionId()), record.encode());
        } catch (Exception ex) {
            log.warn("Job {}: could not record the fire at {}: {}", nodes.root(), record.fireTime(), ex.toString());
        }
    }

    /** Every fire record, by node name ({@code instance~session}), with the node's version, from the cache. */
    public Map<String, Versioned<FireRecord>> fireRecords() {
        Map<String, Versioned<FireRecord>> records = new TreeMap<>();
        for (String instance : cache.children(nodes.fires())) {
            cache.node(nodes.fires() + "/" + instance).ifPresent(node -> {
                try {
                    records.put(
                            instance,
                            new Versioned<>(
                                    FireRecord.decode(node.getData()),
                                    node.getStat().getVersion()));
                } catch (IllegalArgumentException ex) {
                    log.warn("Job {}: ignoring unreadable fire record of {}", nodes.root(), instance);
                }
            });
        }
        return records;
    }

    /** This session's own fire record, from the cache: one node, not all of them. */
    public Optional<FireRecord> fireRecord(String instanceId, long sessionId) {
        return cache.data(nodes.fire(instanceId, sessionId)).flatMap(data -> {
            try {
                return Optional.of(FireRecord.decode(data));
            } catch (IllegalArgumentException ex) {
                return Optional.empty();
            }
        });
    }

    /** A value read together with the version of its node. */
    public record Versioned<T>(T value, int version) {}

    /**
     * Rewrites this session's mark of an item for its next retry, so that an instance taking the item over after a
     * crash continues the count instead of starting it again. Same session guard and race window as {@link #clear}.
     */
    public void markRetry(int item, RunningMark mark) {
        try {
            if (client.getZookeeperClient().getZooKeeper().getSessionId() != mark.sessionId()) {
                return;
            }
            client.setData().forPath(nodes.runningItem(item), mark.encode());
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not record retry {} of item {}: {}",
                    nodes.root(),
                    mark.retry(),
                    item,
                    ex.toString());
        }
    }

    /**
     * Removes the mark of a completed item, but only while this client still has the session that wrote it: after a
     * session loss the mark is no longer ours to remove (it may already be someone else's failover mark). Race window:
     * a session that expires between the check and the delete lets Curator retry the delete on the new session.
     *
     * <p>Returns only once the mark is deleted (or could not be, which is logged), so that a caller that then counts
     * its item as finished never leaves a completed item's mark behind; concurrent calls share one multi-operation.
     */
    public void clear(int item, long markSession) {
        removals.remove(item, markSession);
    }
}
