package io.shardingjob.core.internal.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * How the ledger's reads and writes reach ZooKeeper: on the session's own {@link ZooKeeper} handle, without Curator's
 * retries (see {@link FireLedger} for why), each request still reported to Curator's tracer as Curator's own
 * operations are; and the rules every multi-operation of the ledger shares: how many operations one may hold, and
 * which operation of a failed one failed. Kept apart so that {@link FireLedger} and {@link LedgerReads} say what they
 * ask, not how a request is sent.
 */
final class LedgerRequests {

    /**
     * Operations per multi of reads and deletes: a read claim answers about 250 bytes, so near 250 kB a request, and a
     * thousand items' claims are read in one.
     */
    static final int MAX_OPS_PER_MULTI = 1000;

    /**
     * Bytes of claim writes per multi, half of ZooKeeper's default 1 MB {@code jute.maxbuffer}: a thousand items' ends
     * and the claims of their next fire (about 230 bytes each) still go in one request.
     */
    static final int MAX_WRITE_BYTES = 512 * 1024;

    private final CuratorFramework client;

    /**
     * When the last request on each session that the server answered was sent, shared by every job of the process: the
     * jobs of one client share its session, and any answer proves it lived when the request was sent.
     */
    private static final Map<Long, Long> ANSWERED_SENT_NANOS = new ConcurrentHashMap<>();

    LedgerRequests(CuratorFramework client) {
        this.client = client;
    }

    /**
     * Whether the session certainly still lives on the server, without asking it: the server expires a session only
     * after a whole session timeout without hearing from it, and it heard from it when it answered the last request. Half
     * a timeout after that request was sent, the answer no longer counts (a process frozen or paused since cannot tell
     * how long it was away otherwise). Elapsed time is measured on the monotonic clock: a wall clock set back or forth
     * must not stretch it.
     */
    boolean certainlyLive(long sessionId) {
        Long sent = ANSWERED_SENT_NANOS.get(sessionId);
        if (sent == null || sessionId == 0) {
            return false;
        }
        try {
            ZooKeeper zooKeeper = zooKeeper();
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(zooKeeper.getSessionTimeout());
            return zooKeeper.getSessionId() == sessionId && System.nanoTime() - sent < timeoutNanos / 2;
        } catch (Exception closed) {
            return false;
        }
    }

    private static void answered(long sessionId, long sentNanos) {
        // Sessions are few (one per client and connection loss): the map stays small however long the process runs.
        ANSWERED_SENT_NANOS.merge(sessionId, sentNanos, (earlier, later) -> later - earlier > 0 ? later : earlier);
    }

    /**
     * The server's answer to a multi-operation: {@code OK} with every operation's result, or the code of the first
     * operation it refused with each operation's error.
     */
    record MultiAnswer(KeeperException.Code code, List<OpResult> results) {

        boolean ok() {
            return code == KeeperException.Code.OK;
        }

        /** The index of the operation that failed, or -1. */
        int failedAt() {
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult error
                        && error.getErr() != KeeperException.Code.OK.intValue()
                        && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                    return i;
                }
            }
            return -1;
        }

        KeeperException.Code errorAt(int index) {
            return KeeperException.Code.get(((OpResult.ErrorResult) results.get(index)).getErr());
        }
    }

    /**
     * One multi-operation sent without waiting for it: the answer completes on ZooKeeper's event thread, so what follows
     * it must not block. Completes exceptionally when the server did not answer it (connection loss, session expiry).
     */
    CompletableFuture<MultiAnswer> multiAsync(String name, List<Op> ops) {
        return sendAsync(
                "Ledger" + name,
                (zooKeeper, pending) -> zooKeeper.multi(
                        ops,
                        (rc, path, context, results) -> {
                            KeeperException.Code code = KeeperException.Code.get(rc);
                            if (code == KeeperException.Code.OK || results != null && !results.isEmpty()) {
                                // Refused operation by operation: answered all the same, on a live session.
                                pending.answered(rc, new MultiAnswer(code, results));
                            } else {
                                pending.failed(rc, KeeperException.create(code));
                            }
                        },
                        null));
    }

    /**
     * Asks the server this session talks to to catch up with the leader on the path, without waiting: completes on
     * ZooKeeper's event thread.
     */
    CompletableFuture<Void> syncAsync(String fullPath) {
        return sendAsync(
                "LedgerSync",
                (zooKeeper, pending) -> zooKeeper.sync(
                        fullPath,
                        (rc, path, context) -> {
                            if (rc == KeeperException.Code.OK.intValue()) {
                                pending.answered(rc, null);
                            } else {
                                pending.failed(rc, KeeperException.create(KeeperException.Code.get(rc), path));
                            }
                        },
                        null));
    }

    /** Sends one request on the session's own handle, reported to Curator's tracer as Curator's own operations are. */
    private <T> CompletableFuture<T> sendAsync(String traceName, BiConsumer<ZooKeeper, Pending<T>> request) {
        OperationTrace trace = client.getZookeeperClient().startAdvancedTracer(traceName);
        ZooKeeper zooKeeper;
        try {
            zooKeeper = zooKeeper();
        } catch (Exception unavailable) {
            trace.commit();
            return CompletableFuture.failedFuture(unavailable);
        }
        Pending<T> pending = new Pending<>(trace, zooKeeper.getSessionId(), System.nanoTime());
        request.accept(zooKeeper, pending);
        return pending.result;
    }

    /** A request sent and not answered yet: its trace, and when it was sent on which session. */
    private static final class Pending<T> {

        private final CompletableFuture<T> result = new CompletableFuture<>();

        private final OperationTrace trace;

        private final long session;

        private final long sentNanos;

        private Pending(OperationTrace trace, long session, long sentNanos) {
            this.trace = trace;
            this.session = session;
            this.sentNanos = sentNanos;
        }

        /** The server answered: the session lived when the request was sent. */
        void answered(int rc, @Nullable T value) {
            trace.setReturnCode(rc);
            trace.commit();
            LedgerRequests.answered(session, sentNanos);
            result.complete(value);
        }

        void failed(int rc, Exception failure) {
            trace.setReturnCode(rc);
            trace.commit();
            result.completeExceptionally(failure);
        }
    }

    /**
     * Waits for an answer on a thread that may wait (a fire's, an item's, an operator's; never ZooKeeper's event
     * thread, which would then never deliver it), and throws what it failed with.
     */
    static <T> T await(CompletableFuture<T> answer) throws Exception {
        try {
            return answer.join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    /** The failure of a request the server refused for a reason its caller does not handle. */
    static CompletionException refused(KeeperException.Code code, String fullPath) {
        return new CompletionException(KeeperException.create(code, fullPath));
    }

    ZooKeeper zooKeeper() throws Exception {
        return client.getZookeeperClient().getZooKeeper();
    }

    /** The path with the client's namespace: the raw handle does not add it. */
    String full(String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /** Consecutive views of at most {@code size} elements each, so that no multi-operation exceeds its limit. */
    static <T> List<List<T>> batches(List<T> all, int size) {
        List<List<T>> batches = new ArrayList<>();
        for (int from = 0; from < all.size(); from += size) {
            batches.add(all.subList(from, Math.min(all.size(), from + size)));
        }
        return batches;
    }
}
