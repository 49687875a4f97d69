package io.shardingjob.core.internal.requests;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What proves that this client's session is live: a request that went through the ensemble's leader (a write, or a
 * {@code sync}), never a ping or a read, which a follower that lost its leader still answers. Every job of one client
 * shares the proof: a job's write proves the session of all of them.
 */
public final class SessionProof {

    private final ClientRequests requests;

    private final String root;

    /** @param root the job's root path, which the {@code sync} that proves the session names */
    public SessionProof(ClientRequests requests, String root) {
        this.requests = requests;
        this.root = root;
    }

    /** How long ago the last request that proved the session was sent; null when none did yet. */
    public @Nullable Duration since() {
        return requests.sinceProven();
    }

    /** Proves the session through the leader, with one {@code sync} that every job of the client shares. */
    public CompletableFuture<Void> proveAsync() {
        return requests.proveAsync(requests.full(root));
    }

    /** The id of the session this instance's claims name. */
    public long sessionId() throws Exception {
        return requests.zooKeeper().getSessionId();
    }
}
