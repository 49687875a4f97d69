package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.requests.SessionProof;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a job's connection state is handled, between {@code JobRuntime.start()} and its close:
 *
 * <ul>
 *   <li>SUSPENDED: no new item starts; running items are interrupted a third of a session timeout later, before the
 *       session can expire and another instance take them over;
 *   <li>LOST: the session, and with it every claim this instance holds, is gone: running items are interrupted now;
 *   <li>UNPROVEN: while items run here, the session is proven through the ensemble's leader every ninth of a session
 *       timeout, and the items in the job's code are interrupted as on SUSPENDED at the last proof plus a third of a
 *       session timeout ({@link ProofChecks}): a follower cut off from its leader goes on answering this client's pings,
 *       so Curator never reports SUSPENDED, while the leader expires the session after its timeout;
 *   <li>RECONNECTED: the registration is re-created under the new session once the old session's node is gone (see
 *       {@link io.shardingjob.core.internal.registry.InstanceRegistration}; each creation raises the reshard flag, so
 *       this instance gets items again), the assignment is re-read from ZooKeeper, owed claim writes are made, and an
 *       audit runs before fires start again.
 * </ul>
 *
 * Race window: an item that ignores interrupts keeps running after its session expired while another instance runs
 * it again; its claim's fencing token, lower than the new owner's, lets a store refuse its writes.
 */
public final class ConnectionGuard {

    private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);
    private final JobView view;
    private final SessionState session;
    private final FollowUps followUps;
    private final CuratorFramework client;
    private final JobNodes nodes;
    private final SerialExecutor serial;
    private final Runs runs;
    private final ConnectionStateListener connectionListener = this::connectionStateChanged;
    private final ProofChecks proofChecks;
    private volatile @Nullable ScheduledFuture<?> pendingInterrupt;

    /**
     * The runs the guard stops in time, and how.
     *
     * @param scheduler the timer of the interrupts and the proof checks
     * @param interruptOnConnectionLoss whether running items are interrupted at all
     */
    public record Runs(
            RunMemory memory,
            SessionProof proof,
            ScheduledExecutorService scheduler,
            boolean interruptOnConnectionLoss) {}

    /** @param session written here, and only here */
    public ConnectionGuard(
            JobView view,
            SessionState session,
            FollowUps followUps,
            CuratorFramework client,
            JobNodes nodes,
            SerialExecutor serial,
            Runs runs) {
        this.view = view;
        this.session = session;
        this.followUps = followUps;
        this.client = client;
        this.nodes = nodes;
        this.serial = serial;
        this.runs = runs;
        this.proofChecks = new ProofChecks(
                runs.memory(),
                runs.proof(),
                runs.scheduler(),
                () -> negotiatedSessionTimeoutMillis(client),
                session::isSuspended,
                this::interruptRunningItems);
    }

    public void start() {
        client.getConnectionStateListenable().addListener(connectionListener);
        if (runs.interruptOnConnectionLoss()) {
            proofChecks.start();
        }
    }

    public void close() {
        cancelPendingInterrupt();
        proofChecks.close();
        client.getConnectionStateListenable().removeListener(connectionListener);
    }

    /** A resume that failed is retried here, so a reconnected instance never stays paused. */
    public CompletableFuture<Void> retryResume() {
        if (session.isSuspended() && client.getZookeeperClient().isConnected()) {
            return resumeAfterReconnect();
        }
        return CompletableFuture.completedFuture(null);
    }

    private void connectionStateChanged(CuratorFramework changedClient, ConnectionState newState) {
        switch (newState) {
            case SUSPENDED -> {
                session.suspended();
                log.warn(
                        "Job {} on {}: connection suspended, no new items start until reconnected",
                        view.jobName(),
                        view.instanceId());
                scheduleInterrupt();
                followUps.waitingFires().signal();
            }
            case LOST -> {
                session.lost();
                log.warn(
                        "Job {} on {}: session lost; owns nothing until it has reconnected",
                        view.jobName(),
                        view.instanceId());
                cancelPendingInterrupt();
                interruptRunningItems("the session was lost");
                followUps.waitingFires().signal();
            }
            case RECONNECTED -> {
                cancelPendingInterrupt();
                serial.submit(this::resumeAfterReconnect);
            }
            default -> {}
        }
    }

    /**
     * The server may expire a silent session as early as one session timeout after it last heard from us, and
     * SUSPENDED comes at most two thirds of a session timeout after that, so running items are interrupted a third of
     * a session timeout after SUSPENDED (less a margin): before any other instance can take them over.
     */
    private void scheduleInterrupt() {
        if (!runs.interruptOnConnectionLoss()) {
            return;
        }
        long sessionTimeout = negotiatedSessionTimeoutMillis(client);
        long delay = Math.max(0, sessionTimeout / 3 - Math.min(100, sessionTimeout / 10));
        cancelPendingInterrupt();
        pendingInterrupt = runs.scheduler()
                .schedule(
                        () -> interruptRunningItems("the connection was lost for a third of the session timeout"),
                        delay,
                        TimeUnit.MILLISECONDS);
    }

    private void interruptRunningItems(String why) {
        RunMemory memory = runs.memory();
        if (runs.interruptOnConnectionLoss() && !memory.isIdle()) {
            log.warn("Job {}: interrupting items {}: {}", view.jobName(), memory.runningItems(), why);
            memory.abandonAll();
        }
    }

    private void cancelPendingInterrupt() {
        ScheduledFuture<?> pending = pendingInterrupt;
        if (pending != null) {
            pending.cancel(false);
        }
    }

    /** The session timeout the server granted the client; the timeout it asked for until it is connected. */
    public static long negotiatedSessionTimeoutMillis(CuratorFramework client) {
        try {
            int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (negotiated > 0) {
                return negotiated;
            }
        } catch (Exception ex) {
            // Fall through to the configured value.
        }
        return client.getZookeeperClient().getConnectionTimeoutMs();
    }

    private CompletableFuture<Void> resumeAfterReconnect() {
        if (!view.isStarted() || !session.isSuspended()) {
            return CompletableFuture.completedFuture(null);
        }
        // Read the current epoch from the server, not the cache, before starting anything again.
        return reread().handleAsync(
                        (read, failure) -> {
                            if (failure != null) {
                                log.warn(
                                        "Job {}: could not re-read the registry after reconnecting, will retry: {}",
                                        view.jobName(),
                                        Answers.cause(failure).toString());
                                return CompletableFuture.<Void>completedFuture(null);
                            }
                            return resumed();
                        },
                        serial.pool())
                .thenCompose(resumed -> resumed);
    }

    private CompletableFuture<Void> resumed() {
        if (!view.isStarted() || !session.isSuspended()) {
            return CompletableFuture.completedFuture(null);
        }
        session.resumed(view.now());
        log.info("Job {} on {}: reconnected, resuming", view.jobName(), view.instanceId());
        followUps.waitingFires().signal();
        // Fires missed while disconnected, claims whose end could not be written: the audit settles them.
        return followUps
                .reconciler()
                .reconcile()
                .thenCompose(reconciled -> followUps.audits().run(null));
    }

    /** A {@code sync} of the job's root, then a read of the assignment's node, without waiting for the answers. */
    private CompletableFuture<Void> reread() {
        AsyncCuratorFramework async = AsyncCuratorFramework.wrap(client);
        return async.sync()
                .forPath(nodes.root())
                .thenCompose(synced -> async.checkExists().forPath(nodes.assignment()))
                .toCompletableFuture()
                .thenAccept(read -> {});
    }
}
