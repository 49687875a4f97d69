package io.shardingjob.core.internal.requests;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.jspecify.annotations.Nullable;

/**
 * What the answer to a merged read may come to, as one client's reads taught it: a merged read stays under an estimate
 * of its answer ({@link ClientMultis#MAX_READ_ANSWER_BYTES}), since an answer larger than the client takes in one drops
 * the connection. The nodes that grow with a job's items are reckoned at what their callers know they hold, from their
 * size records ({@link SizeRecord}); listings and the data of the small nodes, from what they, their siblings and their
 * kin answered before; and the reads of a request that lost the connection, at a whole request's worth until answered.
 */
final class AnswerSizes {

    /** What an answer adds to a node's data: its stat and its length. */
    static final long STAT_BYTES = 128;

    /**
     * What a part's reads may answer, as its caller knows it.
     *
     * @param unknownListingBytes what a listing may answer at most, until it was read once
     * @param sized what reading each node that grows with a job's items answers, by its full path
     */
    record Bounds(long unknownListingBytes, long dataBytes, Map<String, Long> sized) {

        Bounds {
            sized = Map.copyOf(sized);
        }
    }

    /** Listings remembered at most; beyond, forgotten and learnt again. */
    private static final int LISTINGS_REMEMBERED = 100_000;

    /**
     * The paths read in a merged request that lost the connection, not answered since: each may have been what made the
     * answer too large, so each is reckoned at a whole request's worth and asked alone.
     */
    private final Set<String> suspects = ConcurrentHashMap.newKeySet();

    /** What each listing answered the last time it was read: paths listed again and again are known to be small. */
    private final Map<String, Long> listingBytes = new ConcurrentHashMap<>();

    /**
     * The largest listing read under each parent: a fire's claims are listed under a path new at each fire, reckoned
     * from the job's earlier fires rather than as unknown (at 5,000 jobs, their periodic checks went four listings a
     * request, one request after another, for seconds).
     */
    private final Map<String, Long> siblingListingBytes = new ConcurrentHashMap<>();

    /**
     * The largest data and listing read of each node's kin ({@link #kin}): the same node of the client's other jobs
     * (their instances, their leader's candidates), reckoned from those rather than at the caller's bound.
     */
    private final Map<String, Long> kinDataBytes = new ConcurrentHashMap<>();

    private final Map<String, Long> kinListingBytes = new ConcurrentHashMap<>();

    /** The client's namespace as a path ("/ns"), or empty: the job's name is the segment after it. */
    private final String namespace;

    AnswerSizes(@Nullable String namespace) {
        this.namespace = namespace == null || namespace.isEmpty() ? "" : "/" + namespace;
    }

    /**
     * About what reading these answers: a sized node's data at what its caller knows; twice what each listing answered
     * last (they grow); twice the largest of a small node's kin's data or listings, else the caller's bounds.
     */
    long answerBytes(List<Op> reads, Bounds bounds) {
        long bytes = 0;
        for (Op read : reads) {
            Long sized = bounds.sized().get(read.getPath());
            if (suspects.contains(read.getPath())) {
                bytes += ClientMultis.MAX_READ_ANSWER_BYTES;
            } else if (read instanceof Op.GetChildren) {
                bytes += 2 * listingBytes(read.getPath(), bounds.unknownListingBytes());
            } else {
                bytes += sized != null ? sized : dataBytes(read.getPath(), bounds.dataBytes());
            }
        }
        return bytes;
    }

    /**
     * What the listing answered last, else the largest of its siblings' and its kin's (a fire's claims are reckoned from
     * the job's earlier fires, a job's instances from the other jobs'), else half the unknown listing's bytes.
     */
    private long listingBytes(String path, long unknownListingBytes) {
        Long known = listingBytes.get(path);
        if (known != null) {
            return known;
        }
        String kin = kin(path);
        long largest = Math.max(
                siblingListingBytes.getOrDefault(parent(path), -1L),
                kin == null ? -1L : kinListingBytes.getOrDefault(kin, -1L));
        return largest < 0 ? unknownListingBytes / 2 : largest;
    }

    /**
     * Twice the largest data a small node's kin answered, its own among them once read (a node's own size is not kept
     * apart: five thousand jobs' twenty nodes each cost more heap than they save), else the caller's bound. Never the
     * reckoning of a node that grows with a job's items: its kin tell nothing of it (most jobs' configurations take a
     * few lines, some half a packet).
     */
    private long dataBytes(String path, long unknownDataBytes) {
        String kin = kin(path);
        Long largest = kin == null ? null : kinDataBytes.get(kin);
        return largest == null ? unknownDataBytes : 2 * largest + STAT_BYTES;
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /**
     * The key of a node's kin: its path with the job's name left out, so that {@code /ns/job-17/leader/election/latch}
     * is kin to {@code /ns/job-18/leader/election/latch}; none for a job's root, and none under the application's own
     * directories, whose names begin with a dot (the ledger's claims are reckoned from their siblings, the claims of the
     * job's earlier fires). One key per kind of node: a key per job would hold as many entries as the jobs have nodes.
     */
    @Nullable
    String kin(String path) {
        int first = path.startsWith(namespace + "/") ? namespace.length() : 0;
        int second = path.indexOf('/', first + 1);
        if (second < 0 || path.startsWith(".", first + 1)) {
            return null;
        }
        return path.substring(0, first) + "/*" + path.substring(second);
    }

    /** Reckons every read of a merged request that lost the connection at a whole request's worth until answered. */
    void suspect(List<Op> reads) {
        if (suspects.size() > LISTINGS_REMEMBERED) {
            suspects.clear();
        }
        reads.forEach(read -> suspects.add(read.getPath()));
    }

    /** Remembers what each listing of the answer came to (twice that is reckoned next time: listings grow). */
    void learn(List<Op> reads, MultiAnswer answer) {
        if (listingBytes.size() > LISTINGS_REMEMBERED) {
            listingBytes.clear();
        }
        if (siblingListingBytes.size() > LISTINGS_REMEMBERED) {
            siblingListingBytes.clear();
        }
        if (kinDataBytes.size() > LISTINGS_REMEMBERED || kinListingBytes.size() > LISTINGS_REMEMBERED) {
            kinDataBytes.clear();
            kinListingBytes.clear();
        }
        for (int i = 0; i < reads.size() && i < answer.results().size(); i++) {
            String path = reads.get(i).getPath();
            suspects.remove(path);
            OpResult result = answer.results().get(i);
            if (result instanceof OpResult.GetChildrenResult listing) {
                long bytes = 64;
                for (String child : listing.getChildren()) {
                    bytes += 4 + child.length();
                }
                listingBytes.put(path, bytes);
                siblingListingBytes.merge(parent(path), bytes, Math::max);
                String kin = kin(path);
                if (kin != null) {
                    kinListingBytes.merge(kin, bytes, Math::max);
                }
            } else if (result instanceof OpResult.GetDataResult data) {
                long bytes = data.getData() == null ? 0 : data.getData().length;
                String kin = kin(path);
                if (kin != null) {
                    kinDataBytes.merge(kin, bytes, Math::max);
                }
            }
        }
    }
}
