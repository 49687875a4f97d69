package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.MultiAnswer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads of a {@link JobCache}: each sent in the multis of reads every job of the client shares, sized so that the
 * merged answer stays within one ({@link RecordedSizes}), and each answer handed to the cached nodes when it is the
 * latest read of its node ({@link ReadStamps}). A load's listings' children found in one answer are read in one part,
 * the nodes that grow with the job's items each in one of their own. Its lock is the cache's: the one that orders the
 * cache's events and answers.
 */
final class CacheReads {

    private static final Logger log = LoggerFactory.getLogger(JobCache.class);
    private final ClientRequests requests;
    private final CachedNodes nodes;
    private final RecordedSizes sizes;

    /** Told each answered read of a load, under this lock: the cache ends the load with its last one. */
    private final Consumer<CacheLoad> loadRead;

    /** Numbers every read and event, and decides which read's answer counts; guarded by {@code this}. */
    private final ReadStamps stamps = new ReadStamps();

    CacheReads(ClientRequests requests, CachedNodes nodes, RecordedSizes sizes, Consumer<CacheLoad> loadRead) {
        this.requests = requests;
        this.nodes = nodes;
        this.sizes = sizes;
        this.loadRead = loadRead;
    }

    /** The stamp of something that begins now, such as a load: what is read later is newer. */
    synchronized long next() {
        return stamps.next();
    }

    /** The node was deleted: removed at once, and the answers of its reads on their way no longer count. */
    synchronized void deleted(String path) {
        stamps.deleted(path);
        nodes.remove(path);
    }

    synchronized void read(String path) {
        read(List.of(new CacheLoad.Asked(path, false)), null);
    }

    /** Sends the reads of the nodes (and their children when a load reads them) as one part of the client's multis. */
    synchronized void read(List<CacheLoad.Asked> batch, @Nullable CacheLoad partOf) {
        if (batch.isEmpty()) {
            return;
        }
        long[] sent = new long[batch.size()];
        List<Op> ops = new ArrayList<>(2 * batch.size());
        Map<String, Long> sized = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            CacheLoad.Asked asked = batch.get(i);
            sent[i] = stamps.sent(asked.path());
            if (partOf != null) {
                partOf.sent();
            }
            ops.add(Op.getData(requests.full(asked.path())));
            if (asked.withChildren()) {
                ops.add(Op.getChildren(requests.full(asked.path())));
            }
            sizes.answerBytes(asked.path()).ifPresent(bytes -> sized.put(requests.full(asked.path()), bytes));
        }
        requests.readAsync("MultiRead", ops, ClientRequests.SMALL_LISTING_BYTES, ClientRequests.READ_DATA_BYTES, sized)
                .whenComplete((answer, failure) -> answered(batch, sent, partOf, answer, failure));
    }

    private synchronized void answered(
            List<CacheLoad.Asked> batch,
            long[] sent,
            @Nullable CacheLoad partOf,
            @Nullable MultiAnswer answer,
            @Nullable Throwable failure) {
        List<CacheLoad.Asked> below = new ArrayList<>();
        if (partOf != null) {
            // Counted as on its way until what the listings found below is sent, in one part.
            partOf.sent();
        }
        int at = 0;
        for (int i = 0; i < batch.size(); i++) {
            int ops = batch.get(i).withChildren() ? 2 : 1;
            MultiAnswer own = answer == null || failure != null
                    ? null
                    : new MultiAnswer(answer.code(), answer.results().subList(at, at + ops));
            answered(batch.get(i).path(), sent[i], partOf, own, failure, below);
            at += ops;
        }
        if (partOf != null) {
            // A part is never split: the nodes that grow with the job's items each in one of their own.
            List<CacheLoad.Asked> small = new ArrayList<>();
            for (CacheLoad.Asked asked : below) {
                if (sizes.answerBytes(asked.path()).isPresent()) {
                    read(List.of(asked), partOf);
                } else {
                    small.add(asked);
                }
            }
            read(small, partOf);
            loadRead.accept(partOf);
        }
    }

    private synchronized void answered(
            String path,
            long stamp,
            @Nullable CacheLoad partOf,
            @Nullable MultiAnswer answer,
            @Nullable Throwable failure,
            List<CacheLoad.Asked> below) {
        boolean latest = stamps.answered(path, stamp);
        if (failure != null || answer == null) {
            // Lost with the connection: its return loads everything again.
            if (partOf != null) {
                partOf.failed();
                loadRead.accept(partOf);
            }
            return;
        }
        OpResult data = answer.results().get(0);
        if (data instanceof OpResult.GetDataResult found) {
            if (latest) {
                ChildData node = new ChildData(path, found.getStat(), found.getData());
                sizes.nodeRead(node);
                nodes.put(node, stamp);
            }
            if (partOf != null) {
                partOf.found(path);
                if (answer.results().size() > 1
                        && answer.results().get(1) instanceof OpResult.GetChildrenResult listing) {
                    below.addAll(partOf.unread(path, listing.getChildren()));
                }
            }
        } else if (MultiAnswer.isMissing(data)) {
            if (latest) {
                nodes.remove(path);
            }
        } else if (partOf != null) {
            log.warn("Could not read {}: {}", path, KeeperException.Code.get(((OpResult.ErrorResult) data).getErr()));
            partOf.failed();
        }
        String waiting = latest ? sizes.recordRead(path) : null;
        if (waiting != null) {
            read(waiting);
        }
        if (partOf != null) {
            loadRead.accept(partOf);
        }
    }
}
