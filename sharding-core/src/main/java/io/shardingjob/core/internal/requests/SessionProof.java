package io.shardingjob.core.internal.requests;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What proves that this client's session is live: a request that went through the ensemble's leader (a write, or a
 * {@code sync}), never a ping or a read, which a follower that lost its leader still answers. Every job of one client
 * shares the proof: a job's write proves the session of all of them.
 */
public final class SessionProof {

    /**
     * When the last request on each session that the ensemble's leader answered was sent, shared by every job of the
     * process: the jobs of one client share its session. Only a write or a {@code sync} counts: the leader checks and
     * touches the session when it handles it, while a follower answers pings and reads by itself, and goes on doing so
     * for up to {@code syncLimit × tickTime} after it lost the leader, who may expire the session meanwhile.
     */
    private static final Map<Long, Long> PROVEN_SENT_NANOS = new ConcurrentHashMap<>();

    /** The proof of each session under way, so that the jobs of one client send one {@code sync} between them. */
    private static final Map<Long, CompletableFuture<Void>> PROVING = new ConcurrentHashMap<>();

    private final ClientRequests requests;
    private final String root;

    /** @param root the job's root path, which the {@code sync} that proves the session names */
    public SessionProof(ClientRequests requests, String root) {
        this.requests = requests;
        this.root = root;
    }

    /**
     * How long ago the request that last proved this client's current session through the leader was sent, on the
     * monotonic clock (a wall clock set back or forth must not stretch it); null when nothing proved it yet. The server
     * cannot expire the session before a whole session timeout after that.
     */
    public @Nullable Duration since() {
        try {
            long sessionId = requests.zooKeeper().getSessionId();
            Long sent = sessionId == 0 ? null : PROVEN_SENT_NANOS.get(sessionId);
            return sent == null ? null : Duration.ofNanos(Math.max(0, System.nanoTime() - sent));
        } catch (Exception closed) {
            return null;
        }
    }

    /**
     * Proves the session through the leader with one {@code sync} of the job's root, unless one is under way: then its
     * answer serves every job of the client.
     */
    public CompletableFuture<Void> proveAsync() {
        long sessionId;
        try {
            sessionId = requests.zooKeeper().getSessionId();
        } catch (Exception closed) {
            return CompletableFuture.failedFuture(closed);
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> under = PROVING.putIfAbsent(sessionId, mine);
        if (under != null) {
            return under;
        }
        requests.syncAsync(requests.full(root)).whenComplete((done, failure) -> {
            PROVING.remove(sessionId, mine);
            if (failure != null) {
                mine.completeExceptionally(failure);
            } else {
                mine.complete(null);
            }
        });
        return mine;
    }

    public long sessionId() throws Exception {
        return requests.zooKeeper().getSessionId();
    }

    /** A request sent on the session at {@code sentNanos} went through the leader: it proves the session. */
    static void proven(long sessionId, long sentNanos) {
        // Sessions are few (one per client and connection loss): the map stays small however long the process runs.
        PROVEN_SENT_NANOS.merge(sessionId, sentNanos, (earlier, later) -> later - earlier > 0 ? later : earlier);
    }
}
