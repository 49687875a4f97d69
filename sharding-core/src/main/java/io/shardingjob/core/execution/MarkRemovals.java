package io.shardingjob.core.execution;

import io.shardingjob.core.registry.JobNodes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the running marks of completed items by group commit, so that a fire costs an instance a few writes rather
 * than one per item. A caller that finds no removal under way becomes the flusher: it deletes every pending mark in one
 * multi-operation. The callers arriving during that round trip wait; when it is over, the first of them flushes all of
 * theirs in the next multi, and so on until none is pending. Nothing waits for company: a lone completion costs one
 * delete, as it did before batching. Each caller returns as soon as the batch holding its mark is committed, not when
 * the later batches are: it counts its item as finished right after, and an item whose mark is gone but which still
 * counts as running would make the next fire skip it.
 */
final class MarkRemovals {

    /** Keeps a multi far below ZooKeeper's request size limit ({@code jute.maxbuffer}, 1 MB by default). */
    private static final int MAX_BATCH = 1000;

    // The messages are those RunningMarks logged before removals were batched, so logging configuration still applies.
    private static final Logger log = LoggerFactory.getLogger(RunningMarks.class);

    private final CuratorFramework client;

    private final JobNodes nodes;

    private final Object lock = new Object();

    /** Guarded by {@link #lock}. */
    private final List<Removal> pending = new ArrayList<>();

    /** Whether some caller flushes or has been handed the next flush; guarded by {@link #lock}. */
    private boolean flushing;

    MarkRemovals(CuratorFramework client, JobNodes nodes) {
        this.client = client;
        this.nodes = nodes;
    }

    /** Removes the mark if the client still has the session that wrote it; returns once it is gone or given up. */
    void remove(int item, long markSession) {
        Removal removal = new Removal(item, markSession, new CompletableFuture<>());
        boolean flusher;
        synchronized (lock) {
            pending.add(removal);
            flusher = !flushing;
            flushing = true;
        }
        // Uninterruptible on purpose: the caller must not go on while its mark may still be there.
        if (flusher || removal.flushNext().join()) {
            flush();
        }
    }

    /** Commits the pending marks from the head of the queue, which hold the flusher's own, then hands the role on. */
    private void flush() {
        List<Removal> batch;
        synchronized (lock) {
            List<Removal> taken = pending.subList(0, Math.min(pending.size(), MAX_BATCH));
            batch = new ArrayList<>(taken);
            taken.clear();
        }
        try {
            commit(batch);
        } finally {
            Removal next;
            synchronized (lock) {
                next = pending.isEmpty() ? null : pending.get(0);
                flushing = next != null;
            }
            batch.forEach(removal -> removal.flushNext().complete(false));
            if (next != null) {
                next.flushNext().complete(true);
            }
        }
    }

    /**
     * An interrupt of the flusher fails its whole batch, as it failed each single delete before batching: only the
     * abandoning of every running item interrupts a thread here, which covers the waiting callers too, and it must stop
     * a delete that Curator would otherwise retry on a new session, where the mark may already be someone else's.
     */
    private void commit(List<Removal> batch) {
        if (batch.size() == 1) {
            removeAlone(batch.get(0));
            return;
        }
        long session;
        try {
            session = currentSession();
        } catch (Exception ex) {
            batch.forEach(removal -> couldNotClear(removal.item(), ex));
            return;
        }
        List<Removal> ours = new ArrayList<>(batch.size());
        for (Removal removal : batch) {
            if (removal.session() == session) {
                ours.add(removal);
            } else {
                leaveToFailover(removal.item());
            }
        }
        if (ours.isEmpty()) {
            return;
        }
        try {
            List<CuratorOp> deletes = new ArrayList<>(ours.size());
            for (Removal removal : ours) {
                deletes.add(client.transactionOp().delete().forPath(nodes.runningItem(removal.item())));
            }
            client.transaction().forOperations(deletes);
        } catch (KeeperException ex) {
            if (ex.getResults() == null) {
                // Not answered (connection or session lost after Curator's retries): deleting item by item would only
                // repeat those retries once per item.
                ours.forEach(removal -> couldNotClear(removal.item(), ex));
            } else {
                // One delete failed, most often because its mark was already gone, and took the others with it.
                ours.forEach(this::removeAlone);
            }
        } catch (Exception ex) {
            ours.forEach(removal -> couldNotClear(removal.item(), ex));
        }
    }

    private void removeAlone(Removal removal) {
        try {
            if (currentSession() != removal.session()) {
                leaveToFailover(removal.item());
                return;
            }
            client.delete().quietly().forPath(nodes.runningItem(removal.item()));
        } catch (Exception ex) {
            couldNotClear(removal.item(), ex);
        }
    }

    private long currentSession() throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }

    private void leaveToFailover(int item) {
        log.info("Job {}: session changed while item {} ran; leaving its mark to failover", nodes.root(), item);
    }

    private void couldNotClear(int item, Exception ex) {
        log.warn("Job {}: could not clear the running mark of item {}: {}", nodes.root(), item, ex.toString());
    }

    /** One caller's mark; {@code flushNext} completes when it is committed (false) or the caller is to flush (true). */
    private record Removal(int item, long session, CompletableFuture<Boolean> flushNext) {}
}
