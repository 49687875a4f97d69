package io.shardingjob.core.internal.registry;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's leaving mark, {@code /{job}/leaving/{instanceId}}: the one node by which an instance that stays
 * connected and registered takes no items. Every reshard leaves a marked instance out, so its items move to the others
 * within one reshard, each handed over as any reshard hands an item over: a run going on here ends here (its claim
 * stays live under the registration), and the item's new owner starts it only once that run has returned.
 *
 * <p>Two things set it: a graceful close, for good, and an application that is not ready, until it is again ({@link
 * #standBy()}, {@link #resume()}). They share the node, so that a leader of an older version, which knows only the
 * close's mark, leaves a standing-by instance out too; and they share this object, so that neither undoes the other: a
 * resume during a close leaves the mark where it is.
 *
 * <p>The mark is ephemeral and goes with its session. Race window: when a standing-by instance is registered again
 * under a new session, the mark is made again before the reshard that registration asks for, but a leader that
 * reshards on seeing the registration alone may give the instance items under one assignment, taken away by the next.
 */
public final class LeavingMark {

    private static final Logger log = LoggerFactory.getLogger(LeavingMark.class);

    private enum Reason {
        NONE,
        NOT_READY,
        CLOSING
    }

    private final CuratorFramework client;
    private final String path;
    private final String jobName;

    /** Guarded by {@code this}, which also orders the mark's creates and deletes. */
    private Reason reason = Reason.NONE;

    /** Whether the job has begun registering: a mark is made only from then on. Guarded by {@code this}. */
    private boolean registering;

    public LeavingMark(CuratorFramework client, JobNodes nodes, String instanceId) {
        this.client = client;
        this.path = nodes.leavingInstance(instanceId);
        this.jobName = JobNodes.name(nodes.root());
    }

    /**
     * Takes no items from now on, staying registered. Before the job registers, it only remembers: the mark is then
     * made before the registration, so that no assignment ever gives this instance items.
     */
    public synchronized void standBy() {
        if (reason == Reason.NONE) {
            reason = Reason.NOT_READY;
            if (registering) {
                create();
            }
        }
    }

    /** Takes items again, unless the job is closing. */
    public synchronized void resume() {
        if (reason == Reason.NOT_READY) {
            reason = Reason.NONE;
            if (registering) {
                delete();
            }
        }
    }

    public synchronized boolean isStandingBy() {
        return reason == Reason.NOT_READY;
    }

    /** The job registers now: a standing-by instance is marked first. */
    public synchronized void beforeRegistering() {
        registering = true;
        if (reason != Reason.NONE) {
            create();
        }
    }

    /**
     * The registration was made, first or again under a new session (which took the old mark with the old one): a
     * standing-by instance is marked before it asks for a reshard.
     */
    public synchronized void registered() {
        if (reason != Reason.NONE) {
            create();
        }
    }

    /** A close begins: marked for good, whatever the readiness. */
    public synchronized void closing() {
        reason = Reason.CLOSING;
        create();
    }

    /** Takes the mark back once the closed job's registration went (see GracefulClose#withdrawLeaving). */
    public synchronized void withdrawAfterClose() {
        try {
            client.delete().quietly().forPath(path);
        } catch (Exception ex) {
            log.debug("Job {}: the leaving mark goes with the session: {}", jobName, ex.toString());
        }
    }

    private void create() {
        try {
            try {
                client.create().withMode(CreateMode.EPHEMERAL).forPath(path);
            } catch (KeeperException.NodeExistsException already) {
                // Ours when made earlier under this session (a standing-by instance that closes, a second close).
                replaceIfOfAnotherSession();
            }
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not write the leaving mark; the items move only when the registration goes: {}",
                    jobName,
                    ex.toString());
        }
    }

    /**
     * A mark of a session this client gave up while the server still holds it (a partition) goes when the server
     * expires that session, which would give this instance items while it stands by: it is replaced by one of ours, as
     * the registration replaces its own leftover node (see {@link InstanceRegistration}).
     */
    private void replaceIfOfAnotherSession() throws Exception {
        Stat stat = client.checkExists().forPath(path);
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        if (stat != null && stat.getEphemeralOwner() != session) {
            try {
                client.delete().withVersion(stat.getVersion()).forPath(path);
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
                // Gone or changed meanwhile: the create below decides.
            }
            try {
                client.create().withMode(CreateMode.EPHEMERAL).forPath(path);
            } catch (KeeperException.NodeExistsException made) {
                // Made by another attempt of ours meanwhile.
            }
        }
    }

    private void delete() {
        try {
            client.delete().quietly().forPath(path);
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not withdraw the leaving mark; this instance gets items again once it goes with"
                            + " the session or the next readiness change withdraws it: {}",
                    jobName,
                    ex.toString());
        }
    }
}
