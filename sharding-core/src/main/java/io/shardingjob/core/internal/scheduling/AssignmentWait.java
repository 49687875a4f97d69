package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.internal.election.LeaderElection;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A fire's wait for the assignment it runs under: on a condition signalled by registry events, connection changes and
 * the lifecycle, never a sleep loop.
 */
final class AssignmentWait {

    private final ShardingService sharding;

    private final LeaderElection election;

    private final String instanceId;

    private final Duration shardingWaitTimeout;

    /** Whether this instance can start items: a wait ends as soon as it cannot. */
    private final BooleanSupplier available;

    private final ReentrantLock lock = new ReentrantLock();

    private final Condition changed = lock.newCondition();

    AssignmentWait(
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

    /**
     * Waits until no reshard is pending, on a condition signalled by registry events, at most the sharding wait
     * timeout. A waiter that becomes leader meanwhile stops waiting and reshards itself (the seed's double check).
     *
     * @return the assignment the fire runs under
     */
    Assignment await() {
        long remaining = shardingWaitTimeout.toNanos();
        boolean waited = false;
        lock.lock();
        try {
            while (((sharding.isReshardPending() && !election.isLeader()) || notAssignedYet())
                    && available.getAsBoolean()
                    && remaining > 0) {
                waited = true;
                remaining = changed.awaitNanos(remaining);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
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
     * cache a moment after {@link JobRuntime#start()} returns, so without this a fire right after start would run
     * nothing. An instance that takes part but owns no items (more instances than items) is named with none, so it does
     * not wait.
     */
    private boolean notAssignedYet() {
        return !sharding.currentAssignment().itemsByInstance().containsKey(instanceId);
    }

    /** Wakes the waiting fires: the registry, the connection or the lifecycle changed. */
    void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
