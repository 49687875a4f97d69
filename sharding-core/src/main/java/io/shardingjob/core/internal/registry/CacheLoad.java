package io.shardingjob.core.internal.registry;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One full read of a job's cached nodes ({@link JobCache}): what it asked for and found, and how many of its reads are
 * still on their way. It reads first the nodes every job has, the containers with their listings, then what those
 * listings hold that it did not ask for, and so on below: walked level by level from the root, a load took a round
 * trip per level, five for a job's tree; most loads now take two. Guarded by its cache's lock.
 */
final class CacheLoad {

    /** A node to read, and whether its children are listed too (a load lists them, to read them next). */
    record Asked(String path, boolean withChildren) {}

    private final long startedAt;
    private final Set<String> asked = new HashSet<>();
    private final Set<String> found = new HashSet<>();

    /** Its reads on their way, and one for the load itself until its first reads are all counted. */
    private int onTheirWay = 1;

    private boolean failed;

    CacheLoad(long startedAt) {
        this.startedAt = startedAt;
    }

    /**
     * The first reads: {@code leaves}, which never have children, first, then the containers every job has under the
     * watched root ({@link JobNodes#structure()}), with their listings. The leaves are the size records: answered
     * first, they size the reads of the nodes they are of, which the listings find. Their paths are built here, at each
     * load, not kept: thousands of jobs' caches would hold them for nothing between loads.
     */
    List<Asked> firstReads(JobNodes job, String watched, Set<String> leaves) {
        List<Asked> reads = new ArrayList<>();
        for (String path : leaves) {
            if (asked.add(path)) {
                reads.add(new Asked(path, false));
            }
        }
        for (String path : job.structure()) {
            if ((path.equals(watched) || path.startsWith(watched + "/")) && asked.add(path)) {
                reads.add(new Asked(path, true));
            }
        }
        return reads;
    }

    /** The children of a listing this load did not ask for yet: read next, with their own listings. */
    List<Asked> unread(String path, List<String> children) {
        List<Asked> reads = new ArrayList<>();
        for (String child : children) {
            String childPath = path + "/" + child;
            if (asked.add(childPath)) {
                reads.add(new Asked(childPath, true));
            }
        }
        return reads;
    }

    void sent() {
        onTheirWay++;
    }

    /** One of its reads was answered, or its first reads were all counted: whether nothing is on its way any more. */
    boolean answered() {
        return --onTheirWay == 0;
    }

    void found(String path) {
        found.add(path);
    }

    boolean wasFound(String path) {
        return found.contains(path);
    }

    void failed() {
        failed = true;
    }

    boolean hasFailed() {
        return failed;
    }

    /** The stamp it started at: what the cache read after that is newer than the load, found or not. */
    long startedAt() {
        return startedAt;
    }
}
