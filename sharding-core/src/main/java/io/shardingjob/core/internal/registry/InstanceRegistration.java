package io.shardingjob.core.internal.registry;

import io.shardingjob.core.internal.requests.ClientRequests;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this instance's ephemeral node {@code /{job}/instances/{instanceId}}, owned by this client's current session
 * and never by another one. The others read the node's {@code ephemeralOwner} as the instance's session (claims of any
 * other session of the instance are orphans), so the node must never be one this process merely found there.
 *
 * <p>Curator's {@code PersistentNode}, finding its path taken, adopts the node with {@code setData} whatever session
 * owns it (CURATOR-154): after a kill -9 and a restart within the session timeout, the new process believed it was
 * registered while the node still belonged to the dead session, which the server then deleted, leaving a gap. Here a
 * create that fails with NodeExists is followed by a read of the node's owner: our session's node is ours; any other
 * session's is left untouched and watched, and ours is created once it is deleted. The node is also created again
 * after our session expired and after it was deleted while our session lived. Every creation is reported to
 * {@code onRegistered}, on ZooKeeper's event thread (every call from a watcher or a connection-state callback is
 * asynchronous): it must hand its work off rather than block, for example a reshard.
 *
 * <p>Race windows:
 *
 * <ul>
 *   <li>A process restarted under the same id while the previous one's session is still alive on the server (a kill
 *       -9 less than a session timeout ago) is not registered until the server expires that session, at most one
 *       session timeout later; its {@link #start} waits that long, whatever its own timeout. Meanwhile the others keep
 *       the id's items where they were; the new session's audit releases the old session's claims once it registers.
 *   <li>Between losing the session and creating the node under the new one the instance is not registered: the others
 *       reshard without it, then again with it. If the client gave the session up while the server still holds it (a
 *       partition, or a frozen server, which expires every session only a session timeout after it resumes), the node
 *       of our own old session is deleted at the version read and created again under the new session: nobody else
 *       can be using it, and waiting for the server to expire it would leave the instance claiming nothing for a
 *       session timeout after every outage.
 *   <li>Two live processes with the same id: whoever created the node keeps it; the other one's {@link #start} fails
 *       once the node outlived what a dead session could (one and a half of this client's session timeouts), or after
 *       its timeout if longer. A registration already started waits, and takes the node only once the other one's goes.
 *   <li>{@link #isRegistered()} is what this client last learnt: while the connection is SUSPENDED it stays true
 *       although the server may already be expiring the session; LOST clears it.
 *   <li>{@link #leave()} deletes the node at the version read only if its owner is our current session. ZooKeeper has
 *       no delete conditional on the owner: if, between the read and the delete, someone else deleted our node and
 *       another session created one at the same version (0), close would delete that one.
 *   <li>A close without a connection waits for it under the session that owns our node, as long as Curator keeps that
 *       session (a session timeout without the server; with {@code simulatedSessionExpirationPercent(0)}, until the
 *       server answers): the session outlives the job when other jobs share the client, and a node left to it would
 *       stay registered and, its leaving mark withdrawn, be given items it never runs.
 * </ul>
 */
public final class InstanceRegistration implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceRegistration.class);

    /** {@code CLOSING}: no longer registering, while the close waits to delete the node or for its session to go. */
    private enum State {
        LATENT,
        STARTED,
        CLOSING,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final WatcherRemoveCuratorFramework client;
    private final InstanceNode node;
    private final NodeOwnership ownership;
    private final String path;
    private final String instanceId;
    private final String jobName;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    private final Watcher watcher = this::nodeChanged;
    private final BackgroundCallback checked = this::checked;

    public InstanceRegistration(CuratorFramework client, JobNodes nodes, String instanceId, Runnable onRegistered) {
        this.client = client.newWatcherRemoveCuratorFramework();
        this.path = nodes.instance(instanceId);
        this.instanceId = instanceId;
        this.jobName = JobNodes.name(nodes.root());
        this.node =
                new InstanceNode(this.client, new ClientRequests(client, "Registration"), path, instanceId, jobName);
        this.ownership = new NodeOwnership(path, instanceId, jobName, onRegistered);
    }

    /**
     * Registers and waits until the node exists under this client's session; while another session holds it, as long as
     * that session can outlive a dead process if that is longer than {@code timeout}. A start that fails leaves no node
     * of ours and no watch.
     *
     * @throws IllegalStateException when the node did not become ours within that time, naming the instance id and,
     *     if another session holds it, saying so; or when already started or closed
     */
    public void start(Duration timeout) {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("Registration of " + path + " was already started or closed");
        }
        long started = System.nanoTime();
        client.getConnectionStateListenable().addListener(connectionListener);
        create();
        Optional<String> failure;
        try {
            failure = ownership.awaitFirst(timeout, started, node.sessionTimeoutMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("Interrupted while registering " + path, ex);
        }
        if (failure.isPresent()) {
            close();
            throw new IllegalStateException(failure.get());
        }
    }

    /** Whether our node exists under our session, as far as this client knows. */
    public boolean isRegistered() {
        return state.get() == State.STARTED && ownership.owner() != 0;
    }

    public String instanceId() {
        return instanceId;
    }

    /** The session that owns our node now; 0 when not registered. */
    public long sessionId() {
        return ownership.owner();
    }

    /**
     * Waits until this client is connected under the session that owns our node, for what a close must write under that
     * session before the node goes; false when not registered, or once that session is gone.
     */
    public boolean awaitSession() {
        return node.awaitConnectedUnder(ownership.owner());
    }

    @Override
    public void close() {
        leave();
    }

    /**
     * Leaves the registry at once rather than when the session times out, deleting the node only if our current session
     * owns it; without a connection, once connected under that session (see the race windows). Whether our node is gone
     * while our session lives on; false when it goes with its session, or another session holds the path.
     */
    public boolean leave() {
        if (!state.compareAndSet(State.STARTED, State.CLOSING)) {
            state.compareAndSet(State.LATENT, State.CLOSED);
            return false;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        long session = ownership.forget();
        try {
            if (client.getState() != CuratorFrameworkState.STARTED) {
                // A crashed process's client is closed already: its watches and its session are gone with it.
                return false;
            }
            client.removeWatchers();
            return node.deleteOnClose(session);
        } finally {
            state.compareAndSet(State.CLOSING, State.CLOSED);
        }
    }

    private boolean started() {
        return state.get() == State.STARTED;
    }

    private void create() {
        if (started()) {
            node.create(this::created);
        }
    }

    private void check() {
        if (started()) {
            node.check(watcher, checked);
        }
    }

    /** Our node is gone while we are registering: it is made again. */
    private void deleted() {
        ownership.lost("its node was deleted");
        create();
    }

    private void created(KeeperException.Code code) {
        if (code == KeeperException.Code.OK) {
            if (!started()) {
                // Closed while the create was in flight: the node is ours and must not outlive the registration.
                node.deleteLate();
                return;
            }
            // Answered on the session it was sent on: an ephemeral node created by it is that session's.
            ownership.registered(node.sessionId());
            check();
        } else if (code == KeeperException.Code.NODEEXISTS) {
            check();
        } else if (code == KeeperException.Code.NONODE) {
            // A job whose nodes were never made: a multi creates no parent.
            if (started()) {
                node.createWithParents(this::created);
            }
        } else {
            // Connection loss and expiry end in CONNECTED, RECONNECTED or LOST, which try again.
            log.debug("Job {}: registering {} failed with {}; waiting for the connection", jobName, instanceId, code);
        }
    }

    private void checked(CuratorFramework framework, CuratorEvent event) {
        if (!started()) {
            return;
        }
        KeeperException.Code code = KeeperException.Code.get(event.getResultCode());
        if (code != KeeperException.Code.OK) {
            if (code == KeeperException.Code.NONODE) {
                deleted();
            } else {
                log.debug("Job {}: reading the registration of {} failed with {}", jobName, instanceId, code);
            }
            return;
        }
        long nodeOwner = event.getStat().getEphemeralOwner();
        long current = node.sessionId();
        if (current != 0 && nodeOwner == current) {
            ownership.registered(current);
        } else if (ownership.gaveUp(nodeOwner)) {
            node.deleteLeftover(event.getStat());
        } else {
            ownership.heldBy(nodeOwner);
        }
    }

    private void nodeChanged(WatchedEvent event) {
        if (!started()) {
            return;
        }
        switch (event.getType()) {
            case NodeDeleted -> deleted();
            case NodeCreated, NodeDataChanged -> check();
            default -> {
                // Connection events: the connection-state listener handles them.
            }
        }
    }

    private void connectionStateChanged(CuratorFramework framework, ConnectionState newState) {
        switch (newState) {
            case LOST -> ownership.sessionLost();
            case CONNECTED, RECONNECTED -> create();
            default -> {
                // SUSPENDED: the session may still live; nothing is known until it is back or lost.
            }
        }
    }
}
