package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A fire's wait for the assignment it runs under: a future completed by registry events, connection changes and the
 * lifecycle, never a sleep loop nor a blocked thread.
 */
public final class AssignmentWait {

    private final ShardingService sharding;
    private final LeaderElection election;
    private final String instanceId;
    private final Duration shardingWaitTimeout;

    /** Whether this instance can start items: a wait ends as soon as it cannot. */
    private final BooleanSupplier available;

    /** The fires waiting, each completed once the assignment is ready or its wait timed out; guarded by this. */
    private final List<CompletableFuture<Void>> waiting = new ArrayList<>();

    public AssignmentWait(
            ShardingService sharding,
            LeaderElection election,
            String instanceId,
            Duration shardingWaitTimeout,
            BooleanSupplier available) {
        this.sharding = sharding;
        this.election = election;
        this.instanceId = instanceId;
        this.shardingWaitTimeout = shardingWaitTimeout;
        this.available = available;
    }

    /** How long a fire waits for a pending reshard, or for the audit of a new assignment. */
    Duration timeout() {
        return shardingWaitTimeout;
    }

    /**
     * The assignment a fire runs under, once no reshard is pending, at most the sharding wait timeout later. The wait
     * holds no thread: a fire whose job is being resharded must not keep the fire threads of every other job (a few,
     * shared) from their fires. A waiter that becomes leader meanwhile stops waiting and reshards itself (the seed's
     * double check).
     *
     * @param executor where what follows a wait runs: it may read the assignment from ZooKeeper
     */
    CompletableFuture<Assignment> whenReady(Executor executor) {
        Assignment now = readyNow();
        if (now != null) {
            return CompletableFuture.completedFuture(now);
        }
        CompletableFuture<Void> ready = new CompletableFuture<Void>()
                .completeOnTimeout(null, shardingWaitTimeout.toMillis(), TimeUnit.MILLISECONDS);
        synchronized (this) {
            waiting.removeIf(CompletableFuture::isDone);
            waiting.add(ready);
        }
        if (!mustWait()) {
            // Ready between the look and the registration: that signal found no waiter.
            ready.complete(null);
        }
        return ready.thenApplyAsync(done -> settled(true), executor);
    }

    /** The assignment a fire runs under when no reshard is pending, as {@link #whenReady}; null when it must wait. */
    @Nullable
    Assignment readyNow() {
        return mustWait() ? null : settled(false);
    }

    private boolean mustWait() {
        return ((sharding.isReshardPending() && !election.isLeader()) || notAssignedYet()) && available.getAsBoolean();
    }

    private Assignment settled(boolean waited) {
        if (sharding.isReshardPending() && election.isLeader()) {
            // Our own cache may not show what we just wrote yet: use the written assignment directly.
            Optional<Assignment> written = sharding.reshardIfNecessary();
            if (written.isPresent()) {
                return written.get();
            }
            // The flag was gone on the server: this instance's own reconcile resharded a moment ago, and the cache may
            // show the flag still and the assignment before it. Read the assignment from ZooKeeper.
            return sharding.readCurrentAssignment();
        }
        if (waited && !sharding.isReshardPending()) {
            // The flag's deletion can reach the cache before the assignment written in the same transaction does:
            // after a wait, read the new assignment from ZooKeeper rather than plan the fire with the old one.
            return sharding.readCurrentAssignment();
        }
        return sharding.currentAssignment();
    }

    /**
     * Whether the assignment in force was made before this instance registered. Its own reshard request reaches its
     * cache a moment after {@code JobRuntime.start()} returns, so without this a fire right after start would run
     * nothing. An instance that takes part but owns no items (more instances than items) is named with none, so it does
     * not wait.
     */
    private boolean notAssignedYet() {
        return !sharding.currentAssignment().itemsByInstance().containsKey(instanceId);
    }

    /** Wakes the waiting fires if they may go on: the registry, the connection or the lifecycle changed. */
    public void signal() {
        List<CompletableFuture<Void>> woken;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
        }
        if (mustWait()) {
            return;
        }
        synchronized (this) {
            woken = List.copyOf(waiting);
            waiting.clear();
        }
        woken.forEach(ready -> ready.complete(null));
    }
}
