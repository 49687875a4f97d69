package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests on this instance's ephemeral node {@code /{job}/instances/{instanceId}}, and the client's session a node
 * must be owned by to be ours: it only sends and reports answers; whether to send, and what an answer means, is
 * {@link InstanceRegistration}'s. The watches are set through the registration's {@link WatcherRemoveCuratorFramework},
 * so that its close removes them all.
 */
final class InstanceNode {

    /** Under {@link InstanceRegistration}'s name, as before these requests had a class of their own: settings apply. */
    private static final Logger log = LoggerFactory.getLogger(InstanceRegistration.class);

    /** How often a wait for the connection checks that the session is still the one waited for. */
    private static final Duration CONNECTION_CHECK = Duration.ofMillis(200);

    private final WatcherRemoveCuratorFramework client;

    /** The client's merged multis: thousands of jobs starting together register in a few requests. */
    private final ClientRequests requests;

    private final String path;
    private final String instanceId;
    private final String jobName;

    InstanceNode(
            WatcherRemoveCuratorFramework client,
            ClientRequests requests,
            String path,
            String instanceId,
            String jobName) {
        this.client = client;
        this.requests = requests;
        this.path = path;
        this.instanceId = instanceId;
        this.jobName = jobName;
    }

    /** The create; {@code answered} is told the code, connection loss when the request failed without one. */
    void create(Consumer<KeeperException.Code> answered) {
        requests.multiAsync("Register", List.of(requests.create(path, describeThisProcess(), CreateMode.EPHEMERAL)))
                .whenComplete((answer, failure) ->
                        answered.accept(failure != null ? KeeperException.Code.CONNECTIONLOSS : answer.refusal()));
    }

    /** The create with its parents, for a job whose nodes were never made (a multi creates no parent). */
    void createWithParents(Consumer<KeeperException.Code> answered) {
        try {
            client.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .inBackground(
                            (framework, event) -> answered.accept(KeeperException.Code.get(event.getResultCode())))
                    .forPath(path, describeThisProcess());
        } catch (Exception ex) {
            log.warn("Job {}: could not register {}: {}", jobName, instanceId, ex.toString());
        }
    }

    /** Reads the node's owner and leaves a watch on it, whoever owns it. */
    void check(Watcher watcher, BackgroundCallback checked) {
        try {
            client.checkExists().usingWatcher(watcher).inBackground(checked).forPath(path);
        } catch (Exception ex) {
            log.warn("Job {}: could not read the registration of {}: {}", jobName, instanceId, ex.toString());
        }
    }

    private enum Deletion {
        /** No node of ours is left: deleted, or not there. */
        GONE,
        /** Another session holds the path, or the delete was refused: nothing of ours to delete. */
        NOT_OURS,
        /** The connection failed before an answer came: the node may still be there. */
        UNANSWERED
    }

    /** Deletes the node, waiting for the answers, only if our current session owns it, on a connected client. */
    private Deletion deleteIfOurs() {
        try {
            Stat stat = client.checkExists().forPath(path);
            if (stat == null) {
                return Deletion.GONE;
            }
            long current = sessionId();
            if (current == 0 || stat.getEphemeralOwner() != current) {
                return Deletion.NOT_OURS;
            }
            client.delete().withVersion(stat.getVersion()).forPath(path);
            return Deletion.GONE;
        } catch (KeeperException.NoNodeException gone) {
            return Deletion.GONE;
        } catch (KeeperException.BadVersionException replaced) {
            // Replaced meanwhile: whatever is there now is not ours.
            return Deletion.NOT_OURS;
        } catch (KeeperException.ConnectionLossException unanswered) {
            return Deletion.UNANSWERED;
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not delete the registration of {}; it goes when the session ends: {}",
                    jobName,
                    instanceId,
                    ex.toString());
            return Deletion.NOT_OURS;
        }
    }

    /**
     * Deletes our node for a close, waiting for the answers: whether no node of ours is left. A delete cut off by a
     * blip is sent again once connected under {@code owner}, the session that owned the node, until that session is
     * gone; with no owner (a start that failed, a session lost and not yet replaced), only if connected now.
     */
    boolean deleteOnClose(long owner) {
        if (owner == 0) {
            return client.getZookeeperClient().isConnected() && deleteIfOurs() == Deletion.GONE;
        }
        Deletion deletion = Deletion.UNANSWERED;
        while (deletion == Deletion.UNANSWERED && awaitConnectedUnder(owner)) {
            deletion = deleteIfOurs();
        }
        return deletion == Deletion.GONE;
    }

    /** Deletes our node left by a session this client lost; the watch on it then creates it again. */
    void deleteLeftover(Stat stat) {
        log.info(
                "Job {}: deleting {} left by this instance's lost session 0x{}, to register under the new one",
                jobName,
                path,
                Long.toHexString(stat.getEphemeralOwner()));
        try {
            client.delete().withVersion(stat.getVersion()).inBackground().forPath(path);
        } catch (Exception ex) {
            log.warn("Job {}: could not delete {}: {}", jobName, path, ex.toString());
        }
    }

    /** Deletes the node a create made while the registration was closing. */
    void deleteLate() {
        try {
            // Just created, at its first version: a node set since is not the one this create made.
            client.delete().withVersion(0).inBackground().forPath(path);
        } catch (Exception ex) {
            log.warn("Job {}: could not delete {} registered while closing: {}", jobName, path, ex.toString());
        }
    }

    /** The client's current session, or 0 when it has none (not connected yet, or closed). */
    long sessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            return 0;
        }
    }

    /** The session timeout the server negotiated with this client, or 0 when it cannot be read. */
    long sessionTimeoutMillis() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception ex) {
            return 0;
        }
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
            while (session != 0 && client.getState() == CuratorFrameworkState.STARTED && sessionId() == session) {
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

    private static byte[] describeThisProcess() {
        String text = "pid=" + ProcessHandle.current().pid() + "\nprocess="
                + ManagementFactory.getRuntimeMXBean().getName() + "\nregisteredAt=" + Instant.now() + "\n";
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
