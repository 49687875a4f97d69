package io.shardingjob.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The items of one job running on this instance right now, with their threads, and the items whose next fire arrived
 * while they still ran (misfired). Kept in memory, not in ZooKeeper, so misfire works whether or not
 * {@code monitorExecution} is on.
 */
final class LocalExecutions {

    private final Map<Integer, Execution> running = new ConcurrentHashMap<>();

    private final Map<Integer, Instant> misfired = new ConcurrentHashMap<>();

    private final Map<Integer, Instant> runningElsewhere = new ConcurrentHashMap<>();

    /** Registers the calling thread as running the item; false if the item already runs here. */
    boolean start(int item) {
        return running.putIfAbsent(item, new Execution(Thread.currentThread())) == null;
    }

    /** Forgets the item's run; waiters for idleness wake up. */
    void finish(int item) {
        running.remove(item);
        synchronized (this) {
            notifyAll();
        }
    }

    /** Whether the item's current run here was abandoned (interrupted by a shutdown or a connection loss). */
    boolean isAbandoned(int item) {
        Execution execution = running.get(item);
        return execution != null && execution.abandoned;
    }

    boolean isRunning(int item) {
        return running.containsKey(item);
    }

    boolean isIdle() {
        return running.isEmpty();
    }

    Set<Integer> runningItems() {
        return Set.copyOf(running.keySet());
    }

    /** Remembers that a fire found the item still running; several missed fires count once, the latest wins. */
    void markMisfired(int item, Instant fireTime) {
        misfired.put(item, fireTime);
    }

    /** The latest fire the item missed while running, forgotten at once so the item runs once more, only once. */
    Optional<Instant> takeMisfired(int item) {
        return Optional.ofNullable(misfired.remove(item));
    }

    /**
     * Remembers that a fire found the item running on another instance (a failover run, or its previous owner still
     * finishing): this instance runs it once when that run ends. Several fires count once, the latest wins.
     */
    void markRunningElsewhere(int item, Instant fireTime) {
        runningElsewhere.merge(item, fireTime, (left, right) -> left.isAfter(right) ? left : right);
    }

    /** The items waiting for another instance's run to end, with the latest fire they missed. */
    Map<Integer, Instant> runningElsewhere() {
        return Map.copyOf(runningElsewhere);
    }

    /** Forgets an item waiting for another instance, if it still waits for that fire. */
    boolean takeRunningElsewhere(int item, Instant fireTime) {
        return runningElsewhere.remove(item, fireTime);
    }

    /** Interrupts every running item and marks its run abandoned, so its mark is handed on rather than cleared. */
    void abandonAll() {
        running.values().forEach(execution -> {
            execution.abandoned = true;
            execution.thread.interrupt();
        });
        misfired.clear();
        runningElsewhere.clear();
    }

    /** Waits until nothing runs, at most the timeout; true if idle. */
    synchronized boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!running.isEmpty()) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            try {
                wait(Math.max(1, remaining / 1_000_000));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return running.isEmpty();
            }
        }
        return true;
    }

    private static final class Execution {

        private final Thread thread;

        private volatile boolean abandoned;

        private Execution(Thread thread) {
            this.thread = thread;
        }
    }
}
