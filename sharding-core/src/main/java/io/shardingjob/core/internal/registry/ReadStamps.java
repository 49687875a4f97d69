package io.shardingjob.core.internal.registry;

import java.util.HashMap;
import java.util.Map;

/**
 * The order of a {@link JobCache}'s reads and events, which decides whose answer counts: of the reads of one node on
 * their way, only the latest one's answer is kept, since one sent before an event of that node may have read what that
 * event changed, and a deletion makes every read sent before it stale. Not thread-safe: the cache calls it under the
 * lock that orders its events and answers.
 */
final class ReadStamps {

    private long stamps;
    private final Map<String, Reading> reading = new HashMap<>();

    /** The reads of one node on their way: how many, and the stamp of the latest, the only one whose answer counts. */
    private static final class Reading {
        private long latest;
        private int onTheirWay;
    }

    /** The stamp of something that begins now, such as a load: what is stamped later is newer. */
    long next() {
        return ++stamps;
    }

    /** A read of the node is sent now: its stamp, which makes it the node's latest. */
    long sent(String path) {
        long stamp = ++stamps;
        Reading pending = reading.computeIfAbsent(path, any -> new Reading());
        pending.latest = stamp;
        pending.onTheirWay++;
        return stamp;
    }

    /** The node was deleted: the answers of the reads on their way, sent before the deletion, no longer count. */
    void deleted(String path) {
        Reading pending = reading.get(path);
        if (pending != null) {
            pending.latest = ++stamps;
        }
    }

    /** The read of the node sent at the stamp was answered: whether its answer counts, being the latest. */
    boolean answered(String path, long stamp) {
        Reading pending = reading.get(path);
        boolean latest = pending != null && pending.latest == stamp;
        if (pending != null && --pending.onTheirWay == 0) {
            reading.remove(path);
        }
        return latest;
    }
}
