package io.shardingjob.core.internal.registry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;

/**
 * This client's ZooKeeper session as the instance's registration judges it: the session a node must be owned by to be
 * ours, its timeout, and from that how long a dead process's session can still hold our node.
 */
final class RegistrationSession {

    /** How often a wait for the connection checks that the session is still the one waited for. */
    private static final Duration CONNECTION_CHECK = Duration.ofMillis(200);

    private final CuratorFramework client;

    RegistrationSession(CuratorFramework client) {
        this.client = client;
    }

    /** The client's current session, or 0 when it has none (not connected yet, or closed). */
    long id() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    /** The session timeout the server negotiated with this client, or 0 when it cannot be read. */
    long timeoutMillis() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception ex) {
            return 0;
        }
    }

    /**
     * How long a dead process's session can still hold our node: the server expires a session one session timeout
     * after it last heard from it, rounded up to its next expiry check (at most a tick, itself at most half a session
     * timeout), and its client last spoke before this start.
     */
    Duration deadSessionPatience() {
        long sessionTimeout = timeoutMillis();
        return Duration.ofMillis(sessionTimeout + sessionTimeout / 2);
    }

    /**
     * Waits until this client is connected under the given session, however long that takes: true then; false once
     * the client has another session or none (it gave the given one up, as Curator does after a session timeout
     * without the server, or it was closed), at once for session 0. The wait is thus bounded by the session itself,
     * which can outlive a blip but not the client's patience. An interrupt does not cut it short: it is kept for the
     * caller.
     */
    boolean awaitConnectedUnder(long session) {
        boolean interrupted = false;
        try {
            while (session != 0 && client.getState() == CuratorFrameworkState.STARTED && id() == session) {
                if (client.getZookeeperClient().isConnected()) {
                    return true;
                }
                try {
                    client.blockUntilConnected((int) CONNECTION_CHECK.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
