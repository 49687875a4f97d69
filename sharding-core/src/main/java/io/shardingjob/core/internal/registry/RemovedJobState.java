package io.shardingjob.core.internal.registry;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletion of a removed job's state in ZooKeeper, the fire ledger included: once no instance holds anything under
 * the job (or the wait is over), its upstreams stop recording fires for it, then its nodes go. The caller deletes the
 * job's definition after it.
 */
public final class RemovedJobState {

    private static final Logger log = LoggerFactory.getLogger(RemovedJobState.class);

    private RemovedJobState() {}

    /**
     * Deletes the job's state, on a thread that may wait up to {@code wait} for the instances to stop the job (watches
     * tell when they let go); deleted all the same after it.
     */
    public static void delete(CuratorFramework client, String jobName, Duration wait) throws Exception {
        awaitNoInstances(client, jobName, wait);
        // Its upstreams stop recording fires for it before its ledger goes.
        FollowerEdges.unregister(client, jobName);
        JobNodes nodes = new JobNodes(jobName);
        // The ledger first: while the root is there the name is taken, so a job of that name made again never finds
        // the fires of this one.
        client.delete().quietly().deletingChildrenIfNeeded().forPath(nodes.ledger());
        client.delete().quietly().deletingChildrenIfNeeded().forPath(nodes.root());
    }

    /**
     * Waits, on watches, until no instance holds anything under the job: its registration, its leaving mark, its
     * leader latch node. A latch still open when the job's nodes are deleted would create its parents again.
     */
    private static void awaitNoInstances(CuratorFramework client, String jobName, Duration wait) throws Exception {
        JobNodes nodes = new JobNodes(jobName);
        long deadline = System.nanoTime() + wait.toNanos();
        for (String held : List.of(nodes.instances(), nodes.leavingInstances(), nodes.leaderLatch())) {
            if (!awaitNoChildren(client, held, deadline)) {
                log.warn(
                        "Job {}: instances still hold {} after {}; deleting the job's state all the same",
                        jobName,
                        held,
                        wait);
                return;
            }
        }
    }

    /** Whether the node had no children (or was gone) before the deadline. */
    private static boolean awaitNoChildren(CuratorFramework client, String path, long deadline) throws Exception {
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            List<String> children;
            try {
                children = client.getChildren()
                        .usingWatcher((Watcher) event -> changed.countDown())
                        .forPath(path);
            } catch (KeeperException.NoNodeException none) {
                return true;
            }
            if (children.isEmpty()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
    }
}
