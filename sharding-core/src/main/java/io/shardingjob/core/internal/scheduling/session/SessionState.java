package io.shardingjob.core.internal.scheduling.session;

import java.time.Duration;
import java.time.Instant;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * What one job knows of its connection and session, written only by its {@link ConnectionGuard} and read by
 * everything that decides whether an item may start: whether it is suspended, and when it came back under a new
 * session after losing one.
 */
public final class SessionState {

    private final CuratorFramework client;
    private volatile boolean suspended;

    /** Whether the session was lost since the last resume: the next one starts a new session. */
    private volatile boolean sessionLost;

    /** When this instance came back under a new session after losing one; null when it never lost one. */
    private volatile @Nullable Instant rejoined;

    public SessionState(CuratorFramework client) {
        this.client = client;
    }

    /** Whether the connection was suspended or lost and the job has not resumed since. */
    public boolean isSuspended() {
        return suspended;
    }

    /**
     * How much longer an owner that is not registered cannot be judged dead here: for a session timeout after this
     * instance came back from losing its own session. Its session may have expired with everyone's (a frozen server
     * expires every session when it resumes), and the others may still be reconnecting, owing the ends of runs they
     * finished meanwhile. Zero when this instance never lost a session, or long enough ago.
     */
    public Duration absentOwnersUndecidedFor(Instant now) {
        Instant since = rejoined;
        if (since == null) {
            return Duration.ZERO;
        }
        Instant decided = since.plusMillis(ConnectionGuard.negotiatedSessionTimeoutMillis(client));
        return now.isBefore(decided) ? Duration.between(now, decided) : Duration.ZERO;
    }

    void suspended() {
        suspended = true;
    }

    void lost() {
        suspended = true;
        sessionLost = true;
    }

    /** The job resumed at {@code now}; a resume after a lost session starts the time owners stay undecided. */
    void resumed(Instant now) {
        suspended = false;
        if (sessionLost) {
            sessionLost = false;
            rejoined = now;
        }
    }
}
