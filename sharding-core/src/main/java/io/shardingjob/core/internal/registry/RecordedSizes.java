package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.SizeRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link JobCache}'s read of each node that grows with the job's items answers ({@link JobNodes#sized()}), from
 * its size record ({@link SizeRecord}), which the cache holds like any other node: never an estimate. Both are written
 * in one transaction, of one zxid; a write of the node seen later than its record's (by an older version or by hand)
 * leaves the record telling nothing, and the node is reckoned at a whole answer: its read goes alone.
 *
 * <p>A writer writes the record before the node, so the record's event comes first: the node's event of the same zxid
 * then waits for the record's read, and the node is read sized from it. A load reads the records first, and the
 * nodes with the other children its listings find.
 *
 * <p>Race windows: a process's first load cannot tell a record left behind by a write by hand (the event that would
 * have told it came before the process); and a node written again between its record's read and its own answers more
 * than its record said. Merged with others near a whole answer, that answer may drop the connection; its reads are
 * then sent again alone, each within one answer. Guarded by the cache's lock.
 */
final class RecordedSizes {

    private final CachedNodes nodes;
    private final Map<String, String> recordOf = new HashMap<>();
    private final Map<String, String> nodeOf = new HashMap<>();

    /** The zxid of each sized node's last write seen, by an event or a read: its record must be of it. */
    private final Map<String, Long> lastWrite = new HashMap<>();

    /** The zxid of the last event of each sized node's record. */
    private final Map<String, Long> recordWrite = new HashMap<>();

    /** The sized nodes whose read waits for their record's, written in the same transaction. */
    private final Set<String> awaiting = new HashSet<>();

    RecordedSizes(JobNodes job, CachedNodes nodes) {
        this.nodes = nodes;
        for (String sized : job.sized()) {
            recordOf.put(sized, job.size(sized));
            nodeOf.put(job.size(sized), sized);
        }
    }

    /** The records, which a load reads first. */
    Set<String> records() {
        return nodeOf.keySet();
    }

    boolean isRecord(String path) {
        return nodeOf.containsKey(path);
    }

    /** A record changed in the transaction of that zxid. */
    void recordChanged(String record, long zxid) {
        recordWrite.put(nodeOf.get(record), zxid);
    }

    /**
     * A sized node changed in the transaction of that zxid: whether its read waits for its record's, on its way, of the
     * same transaction. Otherwise it is read now, at its record's when that is of the same transaction, else alone.
     */
    boolean awaitsRecord(String path, long zxid) {
        if (!recordOf.containsKey(path)) {
            return false;
        }
        lastWrite.put(path, zxid);
        Long record = recordWrite.get(path);
        boolean pending = zxid > 0 && record != null && record == zxid && recordZxid(path) != zxid;
        if (pending) {
            awaiting.add(path);
        }
        return pending;
    }

    /** A record was read (or found missing): the node whose read waited for it, to read now; else null. */
    @Nullable
    String recordRead(String record) {
        String sized = nodeOf.get(record);
        return sized != null && awaiting.remove(sized) ? sized : null;
    }

    /** A sized node was read: the write it found is the one its record must be of. */
    void nodeRead(ChildData node) {
        if (recordOf.containsKey(node.getPath())) {
            lastWrite.merge(node.getPath(), node.getStat().getMzxid(), Math::max);
        }
    }

    /** A load reads everything again: nothing waits any more. */
    void reload() {
        awaiting.clear();
    }

    /**
     * What reading the node answers, when it grows with the job's items: its record's, unless the node was written
     * since without it (a write of it seen later than the record's), else a whole answer; empty for a small node.
     */
    Optional<Long> answerBytes(String path) {
        String record = recordOf.get(path);
        if (record == null) {
            return Optional.empty();
        }
        Optional<ChildData> cached = nodes.node(record);
        Long written = lastWrite.get(path);
        if (cached.isEmpty() || written != null && cached.get().getStat().getMzxid() < written) {
            return Optional.of(SizeRecord.UNRECORDED);
        }
        return Optional.of(SizeRecord.answerBytes(cached.get().getData()));
    }

    private long recordZxid(String sized) {
        return nodes.node(recordOf.get(sized))
                .map(data -> data.getStat().getMzxid())
                .orElse(-1L);
    }
}
