package io.shardingjob.core.drills;

import io.shardingjob.core.testing.TcpProxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.apache.zookeeper.ZooDefs.OpCode;

/**
 * Blackholes a worker's proxy right after it passed the answer to a {@code sync}: the request by which the core proves
 * the session of an instance that runs items and writes nothing, which only the ensemble's leader answers, and which
 * the core counts as proof that its session lives from when it was sent. The core must interrupt its running items a
 * third of a session timeout after its last proof; cut right after one, the worker's last proof is the cut itself,
 * less a round trip on the loopback, so a judge that counts the deadline from the cut's start counts it from that
 * proof. It is also the hardest moment for a core that looks at its proof's age periodically: its proofs are asked on
 * that same period, so its next look comes a whole period after the proof, and it sees the deadline pass only at the
 * first look after it.
 */
final class ProofCut implements BiConsumer<Boolean, byte[]> {

    private final TcpProxy proxy;

    /** The xids of the proving requests that passed to the server and whose answers have not passed back yet. */
    private final Set<Integer> proving = ConcurrentHashMap.newKeySet();

    private final CompletableFuture<Long> cut = new CompletableFuture<>();

    private ProofCut(TcpProxy proxy) {
        this.proxy = proxy;
    }

    /** Blackholes the proxy right after the next proof passes; returns when, in epoch milliseconds. */
    static long afterTheNextProof(TcpProxy proxy, Duration atMost) {
        ProofCut armed = new ProofCut(proxy);
        proxy.observe(armed);
        try {
            return armed.cut.get(atMost.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            throw new IllegalStateException("no proof of the session passed the proxy within " + atMost, ex);
        } catch (ExecutionException ex) {
            throw new IllegalStateException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        } finally {
            proxy.observe((toServer, packet) -> {});
        }
    }

    /** A request's header is its xid and its type; an answer's starts with the xid of its request. */
    @Override
    public void accept(Boolean toServer, byte[] packet) {
        if (packet.length < 8 || cut.isDone()) {
            return;
        }
        ByteBuffer fields = ByteBuffer.wrap(packet);
        int xid = fields.getInt(0);
        if (toServer) {
            int type = fields.getInt(4);
            if (type == OpCode.sync) {
                proving.add(xid);
            }
        } else if (proving.remove(xid)) {
            proxy.freeze();
            cut.complete(System.currentTimeMillis());
        }
    }
}
