package io.shardingjob.core.execution;

import io.shardingjob.core.registry.JobCache;
import io.shardingjob.core.registry.JobNodes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ephemeral {@code /{job}/running/{item}} marks, so that no item starts while another instance still runs it. An
 * instance marks all its items of a fire in one multi-operation; the marks vanish with the session if it dies.
 */
public final class RunningMarks {

    private static final Logger log = LoggerFactory.getLogger(RunningMarks.class);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final JobCache cache;

    public RunningMarks(CuratorFramework client, JobNodes nodes, JobCache cache) {
        this.client = client;
        this.nodes = nodes;
        this.cache = cache;
    }

    /** The items marked running by any instance, from the cache. */
    public Set<Integer> running() {
        Set<Integer> items = new TreeSet<>();
        for (String name : cache.children(nodes.running())) {
            items.add(Integer.parseInt(name));
        }
        return items;
    }

    /**
     * Marks the items running, all in one multi-operation when none is marked yet.
     *
     * @return the items now marked by this call; an item already marked by someone else is left out
     */
    public List<Integer> mark(List<Integer> items, String instanceId, long epoch) throws Exception {
        if (items.isEmpty()) {
            return items;
        }
        byte[] owner = (instanceId + "\n" + epoch).getBytes(StandardCharsets.UTF_8);
        List<CuratorOp> ops = new ArrayList<>(items.size());
        for (int item : items) {
            ops.add(client.transactionOp()
                    .create()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(nodes.runningItem(item), owner));
        }
        try {
            client.transaction().forOperations(ops);
            return items;
        } catch (KeeperException.NodeExistsException someoneElse) {
            // The cache lagged behind another instance's mark; fall back to marking item by item.
            List<Integer> marked = new ArrayList<>();
            for (int item : items) {
                try {
                    client.create().withMode(CreateMode.EPHEMERAL).forPath(nodes.runningItem(item), owner);
                    marked.add(item);
                } catch (KeeperException.NodeExistsException taken) {
                    log.debug("Job {}: item {} is still running elsewhere", nodes.root(), item);
                }
            }
            return marked;
        }
    }

    public void clear(int item) {
        try {
            client.delete().quietly().forPath(nodes.runningItem(item));
        } catch (Exception ex) {
            // The mark is ephemeral: it goes with the session if this delete cannot reach ZooKeeper.
            log.warn("Job {}: could not clear the running mark of item {}", nodes.root(), item, ex);
        }
    }
}
