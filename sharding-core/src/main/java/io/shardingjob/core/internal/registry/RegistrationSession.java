package io.shardingjob.core.internal.registry;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * This client's ZooKeeper session as the instance's registration judges it: the session a node must be owned by to be
 * ours, the timeout the server granted it, and from that timeout how long a dead process's session can still hold our
 * node. A class of its own so that {@link InstanceRegistration} and {@link InstanceNode} ask one place, and the
 * patience rule sits next to the timeout it is derived from.
 */
final class RegistrationSession {

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
}
