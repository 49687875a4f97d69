package io.shardingjob.core.internal.registry;

import java.util.EnumSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.curator.x.async.api.DeleteOption;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
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
 * <p>The writes are asynchronous and chained: each is sent once the one before it was answered, so the node ends as
 * the last call left it (a quick stand-by, resume and stand-by ends marked), and no caller waits for ZooKeeper but
 * those whose next step needs the mark made: the registration (the mark goes first, so that no assignment gives a
 * standing-by instance items) and the close (the mark is made before leadership is handed over). Thousands of jobs on
 * one client thus stand by with their creates sent together rather than one round trip after another, and a ZooKeeper
 * outage holds no caller of {@link #standBy()} or {@link #resume()}.
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
    private final AsyncCuratorFramework async;
    private final String path;
    private final String jobName;

    /** Guarded by {@code this}. */
    private Reason reason = Reason.NONE;

    /** Whether the job has begun registering: a mark is made only from then on. Guarded by {@code this}. */
    private boolean registering;

    /** The last write asked for; the next is sent once it ended, whichever way. Guarded by {@code this}. */
    private CompletableFuture<Void> lastWrite = CompletableFuture.completedFuture(null);

    public LeavingMark(CuratorFramework client, JobNodes nodes, String instanceId) {
        this.client = client;
        this.async = AsyncCuratorFramework.wrap(client);
        this.path = nodes.leavingInstance(instanceId);
        this.jobName = JobNodes.name(nodes.root());
    }

    /**
     * Takes no items from now on, staying registered. Before the job registers, it only remembers: the mark is then
     * made before the registration, so that no assignment ever gives this instance items.
     *
     * @return completes once the mark is written (at once before the registration), exceptionally when that failed
     */
    public synchronized CompletionStage<Void> standBy() {
        if (reason == Reason.NONE) {
            reason = Reason.NOT_READY;
            if (registering) {
                return then(this::create).minimalCompletionStage();
            }
        }
        return lastWrite.minimalCompletionStage();
    }

    /**
     * Takes items again, unless the job is closing.
     *
     * @return completes once the mark is gone, exceptionally when its delete failed
     */
    public synchronized CompletionStage<Void> resume() {
        if (reason == Reason.NOT_READY) {
            reason = Reason.NONE;
            if (registering) {
                return then(this::delete).minimalCompletionStage();
            }
        }
        return lastWrite.minimalCompletionStage();
    }

    public synchronized boolean isStandingBy() {
        return reason == Reason.NOT_READY;
    }

    /** The job registers now: a standing-by instance is marked first, and the registration waits for it. */
    public void beforeRegistering() {
        CompletableFuture<Void> marked;
        synchronized (this) {
            registering = true;
            if (reason == Reason.NONE) {
                return;
            }
            marked = then(this::create);
        }
        awaitQuietly(marked);
    }

    /**
     * The registration was made, first or again under a new session (which took the old mark with the old one): a
     * standing-by instance is marked before it asks for a reshard.
     */
    public void registered() {
        CompletableFuture<Void> marked;
        synchronized (this) {
            if (reason == Reason.NONE) {
                return;
            }
            marked = then(this::create);
        }
        awaitQuietly(marked);
    }

    /** A close begins: marked for good, whatever the readiness, before the close goes on. */
    public void closing() {
        CompletableFuture<Void> marked;
        synchronized (this) {
            reason = Reason.CLOSING;
            marked = then(this::create);
        }
        awaitQuietly(marked);
    }

    /** Takes the mark back once the closed job's registration went (see GracefulClose#withdrawLeaving). */
    public void withdrawAfterClose() {
        CompletableFuture<Void> withdrawn;
        synchronized (this) {
            withdrawn = then(() -> attempt(this::deleteQuietly).whenComplete((done, failure) -> {
                if (failure != null) {
                    log.debug(
                            "Job {}: the leaving mark goes with the session: {}",
                            jobName,
                            cause(failure).toString());
                }
            }));
        }
        awaitQuietly(withdrawn);
    }

    /** Guarded by this: the write is sent once the last one ended, and becomes the last. */
    private CompletableFuture<Void> then(Supplier<CompletableFuture<Void>> write) {
        lastWrite = lastWrite.exceptionally(failed -> null).thenCompose(ended -> write.get());
        return lastWrite;
    }

    private CompletableFuture<Void> create() {
        return createEphemeral()
                .exceptionallyCompose(failure -> cause(failure) instanceof KeeperException.NodeExistsException
                        // Ours when made earlier under this session (a standing-by instance that closes, a second
                        // close).
                        ? replaceIfOfAnotherSession()
                        : CompletableFuture.failedFuture(cause(failure)))
                .whenComplete((done, failure) -> {
                    if (failure != null) {
                        log.warn(
                                "Job {}: could not write the leaving mark; the items move only when the registration"
                                        + " goes: {}",
                                jobName,
                                cause(failure).toString());
                    }
                });
    }

    /**
     * A mark of a session this client gave up while the server still holds it (a partition) goes when the server
     * expires that session, which would give this instance items while it stands by: it is replaced by one of ours, as
     * the registration replaces its own leftover node (see {@link InstanceRegistration}).
     */
    private CompletableFuture<Void> replaceIfOfAnotherSession() {
        return attempt(() -> async.checkExists().forPath(path)).thenCompose(stat -> {
            if (stat == null || stat.getEphemeralOwner() == sessionId()) {
                return CompletableFuture.completedFuture(null);
            }
            return attempt(() -> async.delete().withVersion(stat.getVersion()).forPath(path))
                    .exceptionallyCompose(failure -> ignoring(
                            failure,
                            // Gone or changed meanwhile: the create below decides.
                            KeeperException.NoNodeException.class,
                            KeeperException.BadVersionException.class))
                    .thenCompose(deleted -> createEphemeral()
                            // Made by another attempt of ours meanwhile.
                            .exceptionallyCompose(
                                    failure -> ignoring(failure, KeeperException.NodeExistsException.class)));
        });
    }

    private CompletableFuture<Void> createEphemeral() {
        return attempt(() -> async.create().withMode(CreateMode.EPHEMERAL).forPath(path))
                .thenApply(made -> null);
    }

    private CompletableFuture<Void> delete() {
        return attempt(this::deleteQuietly).whenComplete((done, failure) -> {
            if (failure != null) {
                log.warn(
                        "Job {}: could not withdraw the leaving mark; this instance gets items again once it goes"
                                + " with the session or the next readiness change withdraws it: {}",
                        jobName,
                        cause(failure).toString());
            }
        });
    }

    private CompletionStage<Void> deleteQuietly() {
        return async.delete().withOptions(EnumSet.of(DeleteOption.quietly)).forPath(path);
    }

    /** The session the client has now; a mark of any other is of a session given up. */
    private long sessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            throw new CompletionException(ex);
        }
    }

    /** An operation's answer; a failure thrown before it was sent (a closed client) becomes the stage's. */
    private static <T> CompletableFuture<T> attempt(Callable<? extends CompletionStage<T>> operation) {
        try {
            return operation.call().toCompletableFuture();
        } catch (Exception ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    @SafeVarargs
    private static CompletableFuture<Void> ignoring(Throwable failure, Class<? extends KeeperException>... expected) {
        Throwable cause = cause(failure);
        for (Class<? extends KeeperException> kind : expected) {
            if (kind.isInstance(cause)) {
                return CompletableFuture.completedFuture(null);
            }
        }
        return CompletableFuture.failedFuture(cause);
    }

    private static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /** Waits for a write whose failure was logged where it failed. */
    private static void awaitQuietly(CompletableFuture<Void> write) {
        try {
            write.join();
        } catch (CompletionException logged) {
            // Logged by the write.
        }
    }
}
