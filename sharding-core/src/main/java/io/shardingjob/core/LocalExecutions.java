package io.shardingjob.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The items of one job reserved or running on this instance right now, with their threads, and the items whose next
 * fire arrived while they still ran (misfired). An item is reserved when a fire plans it, before it is marked in
 * ZooKeeper, so that two fires of this instance never both plan it: the later one records a misfire instead. Kept in
 * memory, not in ZooKeeper, so misfire works whether or not {@code monitorExecution} is on.
 */
final class LocalExecutions {

    private final Map<Integer, Execution> running = new ConcurrentHashMap<>();

    private final Map<Integer, Instant> misfired = new ConcurrentHashMap<>();

    private final Map<Integer, Instant> runningElsewhere = new ConcurrentHashMap<>();

    /** Reserves the item for a fire being planned; null if a fire of this instance already has it. */
    Execution reserve(int item) {
        Execution reservation = new Execution(false);
        return running.putIfAbsent(item, reservation) == null ? reservation : null;
    }

    /**
     * Reserves the item for a failover run whose claim already fenced it cluster-wide: a reservation by a fire of ours
     * that has not marked the item yet can no longer run it, and is displaced.
     */
    Execution reserveForFailover(int item) {
        Execution reservation = new Execution(true);
        running.put(item, reservation);
        return reservation;
    }

    /** Attaches the calling thread to the reservation; false if the reservation was displaced meanwhile. */
    boolean start(int item, Execution reservation) {
        if (running.get(item) != reservation) {
            return false;
        }
        reservation.thread = Thread.currentThread();
        return true;
    }

    /** Ends a reservation (run or not); waiters for idleness wake up. */
    void finish(int item, Execution reservation) {
        running.remove(item, reservation);
        synchronized (this) {
            notifyAll();
        }
    }

    boolean isIdle() {
        return running.isEmpty();
    }

    Set<Integer> runningItems() {
        return Set.copyOf(running.keySet());
    }

    /** Remembers that a fire found the item still running; several missed fires count once, the latest wins. */
    void markMisfired(int item, Instant fireTime) {
        misfired.merge(item, fireTime, (left, right) -> left.isAfter(right) ? left : right);
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

    /** Takes every fire still waiting to be made up here (misfired, or waiting for a run elsewhere), latest per item. */
    Map<Integer, Instant> takePending() {
        Map<Integer, Instant> pending = new java.util.TreeMap<>();
        for (Map<Integer, Instant> waiting : List.of(misfired, runningElsewhere)) {
            for (Integer item : List.copyOf(waiting.keySet())) {
                Instant fireTime = waiting.remove(item);
                if (fireTime != null) {
                    pending.merge(item, fireTime, (left, right) -> left.isAfter(right) ? left : right);
                }
            }
        }
        return pending;
    }

    /** Interrupts every running item and marks its run abandoned, so its mark is handed on rather than cleared. */
    void abandonAll() {
        running.values().forEach(execution -> {
            execution.abandoned = true;
            Thread thread = execution.thread;
            if (thread != null) {
                thread.interrupt();
            }
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

    /** One reservation of one item: the thread running it once it starts, and whether it was abandoned. */
    static final class Execution {

        private final boolean claimed;

        private volatile Thread thread;

        private Execution(boolean claimed) {
            this.claimed = claimed;
        }

        /** A run of a claimed orphan: the claim fenced it cluster-wide, not the epoch it carries. */
        boolean isClaimed() {
            return claimed;
        }

        private volatile boolean abandoned;

        boolean isAbandoned() {
            return abandoned;
        }
    }
}
