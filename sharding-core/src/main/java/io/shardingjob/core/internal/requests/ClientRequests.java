package io.shardingjob.core.internal.requests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;
import org.jspecify.annotations.Nullable;

/**
 * How the fire ledger's and the registry cache's requests reach ZooKeeper: on the session's own {@link ZooKeeper}
 * handle, without Curator's retries (the ledger decides itself what a lost answer means), each still reported to
 * Curator's tracer, and every multi merged with those the client's other jobs ask for meanwhile ({@link ClientMultis}).
 */
public final class ClientRequests {

    /**
     * Operations per multi of reads and deletes: a read claim answers about 250 bytes, so near 250 kB a request, and a
     * thousand items' claims are read in one.
     */
    public static final int MAX_OPS_PER_MULTI = 1000;

    /**
     * Bytes of claim writes per multi, half of ZooKeeper's default 1 MB {@code jute.maxbuffer}: a thousand items' ends
     * and the claims of their next fire (about 230 bytes each) still go in one request.
     */
    public static final int MAX_WRITE_BYTES = 512 * 1024;

    /** A node's data as the ledger writes them: a claim or a fire's origin answers a few hundred bytes. */
    public static final long READ_DATA_BYTES = 1024;

    /**
     * A listing of a job's small state not read yet (its instances, a leader's latch, disabled items): none grows with
     * fires, and a few hundred names fit.
     */
    public static final long SMALL_LISTING_BYTES = 8 * 1024;

    private final CuratorFramework client;

    /** What the names of this user's requests start with in Curator's tracer: {@code Ledger}, {@code Cache}. */
    private final String traceNamePrefix;

    /** {@code /ns}, or empty without a namespace. */
    private final String namespacePrefix;

    private final ClientMultis multis;

    /** Write operations asked for through this user, merged or not: what its meter of writes counts. */
    private final LongAdder writeOperations = new LongAdder();

    public ClientRequests(CuratorFramework client, String traceNamePrefix) {
        this.client = client;
        this.traceNamePrefix = traceNamePrefix;
        this.multis = ClientMultis.of(client);
        String namespace = client.getNamespace();
        this.namespacePrefix = namespace == null || namespace.isEmpty() ? "" : ZKPaths.makePath("/", namespace);
    }

    /**
     * One multi-operation sent without waiting, merged with those the client's other jobs ask for meanwhile (reads
     * bounded as the ledger's are). The answer completes on ZooKeeper's event thread, so what follows it must not
     * block; exceptionally when the server did not answer it (connection loss, session expiry).
     */
    public CompletableFuture<MultiAnswer> multiAsync(String name, List<Op> ops) {
        countWrites(ops);
        return multis.send(new ClientMultis.Part(this::sendMulti, name, ops, ClientMultis.LEDGER_READS));
    }

    /**
     * {@link #multiAsync(String, List)} of reads whose answers are not the ledger's: the merged answer must stay under
     * what the client takes in one, so the caller says what a listing not read yet and a node's data may come to.
     */
    public CompletableFuture<MultiAnswer> readAsync(
            String name, List<Op> reads, long unknownListingBytes, long dataBytes) {
        return readAsync(name, reads, unknownListingBytes, dataBytes, Map.of());
    }

    /**
     * Reads that include nodes growing with a job's items, each reckoned at what the caller knows it answers
     * ({@code sized}, by full path; {@link SizeRecord#answerBytes}), never by an estimate.
     */
    public CompletableFuture<MultiAnswer> readAsync(
            String name, List<Op> reads, long unknownListingBytes, long dataBytes, Map<String, Long> sized) {
        return multis.send(new ClientMultis.Part(
                this::sendMulti, name, reads, new AnswerSizes.Bounds(unknownListingBytes, dataBytes, sized)));
    }

    /**
     * Sized from the records of the nodes that grow with a job's items ({@code recordOf}: full path to full path), read
     * first in a request of their own, merged with the client's other reads ({@link ClientMultis#sendRecorded}).
     */
    public CompletableFuture<MultiAnswer> readRecordedAsync(
            String name, List<Op> reads, long unknownListingBytes, long dataBytes, Map<String, String> recordOf) {
        return multis.sendRecorded(this::sendMulti, name, reads, unknownListingBytes, dataBytes, recordOf);
    }

    /** The write operations asked for through this user so far, each create, write, delete or check counting once. */
    public long writeOperations() {
        return writeOperations.sum();
    }

    private void countWrites(List<Op> ops) {
        long writes = ops.stream()
                .filter(op -> !(op instanceof Op.GetData || op instanceof Op.GetChildren))
                .count();
        if (writes > 0) {
            writeOperations.add(writes);
        }
    }

    /** One multi-operation sent as it is, on its own: what {@link ClientMultis} sends, merged or not. */
    public CompletableFuture<MultiAnswer> sendMulti(String name, List<Op> ops) {
        boolean throughLeader =
                ops.stream().anyMatch(op -> !(op instanceof Op.GetData || op instanceof Op.GetChildren));
        return sendAsync(
                traceNamePrefix + name,
                throughLeader,
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

    /** Asks the server this session talks to to catch up with the leader, completing on ZooKeeper's event thread. */
    public CompletableFuture<Void> syncAsync(String fullPath) {
        return sendAsync(
                traceNamePrefix + "Sync",
                true,
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

    /**
     * Whether the node is there and at which data version, leaving a watch on it: {@code watcher} is told once when the
     * node is written, created or deleted (and of the session's end). Completes with the node's stat, or null when it is
     * not there, on ZooKeeper's event thread. A watch left again with the same watcher is one watch.
     */
    public CompletableFuture<@Nullable Stat> watchAsync(String fullPath, Watcher watcher) {
        return sendAsync(
                traceNamePrefix + "Exists",
                false,
                (zooKeeper, pending) -> zooKeeper.exists(
                        fullPath,
                        watcher,
                        (rc, path, context, stat) -> {
                            KeeperException.Code code = KeeperException.Code.get(rc);
                            if (code == KeeperException.Code.OK || code == KeeperException.Code.NONODE) {
                                pending.answered(rc, stat);
                            } else {
                                pending.failed(rc, KeeperException.create(code, path));
                            }
                        },
                        null));
    }

    /** Sends one request on the session's own handle, reported to Curator's tracer as Curator's own operations are. */
    private <T> CompletableFuture<T> sendAsync(
            String traceName, boolean throughLeader, BiConsumer<ZooKeeper, Pending<T>> request) {
        OperationTrace trace = client.getZookeeperClient().startAdvancedTracer(traceName);
        ZooKeeper zooKeeper;
        try {
            zooKeeper = zooKeeper();
        } catch (Exception unavailable) {
            trace.commit();
            return CompletableFuture.failedFuture(unavailable);
        }
        Pending<T> pending = new Pending<>(
                trace, zooKeeper.getSessionId(), System.nanoTime(), throughLeader, new CompletableFuture<>());
        request.accept(zooKeeper, pending);
        return pending.result();
    }

    /**
     * A request sent and not answered yet: its trace, and when it was sent on which session.
     *
     * @param throughLeader whether only the leader answers it: then the answer proves the session
     */
    private record Pending<T>(
            OperationTrace trace, long session, long sentNanos, boolean throughLeader, CompletableFuture<T> result) {

        /** The server answered: the session lived when the request was sent, as the leader knows if it answered. */
        void answered(int rc, @Nullable T value) {
            trace.setReturnCode(rc);
            trace.commit();
            if (throughLeader) {
                SessionProof.proven(session, sentNanos);
            }
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
    public static <T> T await(CompletableFuture<T> answer) throws Exception {
        try {
            return answer.join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    /** The failure of a request the server refused for a reason its caller does not handle. */
    public static CompletionException refused(KeeperException.Code code, String fullPath) {
        return new CompletionException(KeeperException.create(code, fullPath));
    }

    public ZooKeeper zooKeeper() throws Exception {
        return client.getZookeeperClient().getZooKeeper();
    }

    /**
     * The path with the client's namespace, which the raw handle does not add: a concatenation, not Curator's
     * validating rebuild, as a fire's claims name a thousand paths, all built by {@code JobNodes} and checked again by
     * the server.
     */
    public String full(String path) {
        return namespacePrefix + path;
    }

    /**
     * The creation of a persistent node for a multi-operation, under the namespace and with the ACL of the client's ACL
     * provider: with digest authentication, only this identity may read or change it. A raw {@link Op} with an ACL of
     * its own would bypass the provider and leave the node open to anyone. The data is written as given: Curator's own
     * operations would compress it when the client compresses by default, and the ledger reads its nodes raw.
     */
    public Op createPersistent(String path, byte[] data) {
        return create(path, data, CreateMode.PERSISTENT);
    }

    /** {@link #createPersistent}, of a node of any mode: an ephemeral one belongs to the session the multi runs on. */
    public Op create(String path, byte[] data, CreateMode mode) {
        return Op.create(
                full(path), data, CreateOptions.newBuilder(aclFor(path), mode).build());
    }

    /** The ACL the client's ACL provider gives a node, as Curator's own creation of it would carry it. */
    private List<ACL> aclFor(String path) {
        try {
            Op probe = client.transactionOp()
                    .create()
                    .withMode(CreateMode.PERSISTENT)
                    .forPath(path)
                    .get();
            return ((CreateRequest) probe.toRequestRecord()).getAcl();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not tell the ACL of " + path, ex);
        }
    }

    /** Consecutive views of at most {@code size} elements each, so that no multi-operation exceeds its limit. */
    public static <T> List<List<T>> batches(List<T> all, int size) {
        List<List<T>> batches = new ArrayList<>();
        for (int from = 0; from < all.size(); from += size) {
            batches.add(all.subList(from, Math.min(all.size(), from + size)));
        }
        return batches;
    }
}
