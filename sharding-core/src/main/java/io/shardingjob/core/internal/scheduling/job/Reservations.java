package io.shardingjob.core.internal.scheduling.job;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The items reserved or running on this instance now: an item runs at most once at a time on an instance, whatever
 * fire or audit asks for it. The ledger decides who runs an item across the cluster; this only keeps one instance from
 * racing itself, and holds an item a fire found busy for the audit that makes that fire up.
 */
final class Reservations {

    private final Map<Integer, Reservation> running = new ConcurrentHashMap<>();
    /** What each item's run here owes when it ends: the fires (or the audits) that found it busy meanwhile. */
    private final Map<Integer, Owed> missedWhileBusy = new ConcurrentHashMap<>();

    /**
     * Items whose run here ended after a fire (or an audit) found them busy: still reserved, for the audit that makes
     * that fire up; guarded by this (each entry is also in {@code running}).
     */
    private final Map<Integer, Reservation> heldForAudit = new HashMap<>();

    /** Whether an item may still be held for an audit: not once the instance stops, when no audit comes; guarded by this. */
    private boolean holding = true;

    /** Reserves the item for a run; null if a run of this instance already has it. */
    @Nullable
    Reservation reserve(int item) {
        Reservation reservation = new Reservation();
        return running.putIfAbsent(item, reservation) == null ? reservation : null;
    }

    /**
     * Attaches the calling thread to the reservation; false if it was released meanwhile, or abandoned before it
     * started (see {@link #abandonAll()}).
     */
    boolean start(int item, Reservation reservation) {
        synchronized (reservation) {
            if (running.get(item) != reservation || reservation.abandoned) {
                return false;
            }
            reservation.thread = Thread.currentThread();
            return true;
        }
    }

    /**
     * The run is about to enter the job's code: from now on it runs on the session's last proof, and stops once that
     * proof is a third of a session timeout old (see {@code ProofChecks}). Marked before the run checks the proof's
     * age, so that a check of the proofs that runs in between counts it.
     */
    void entering(Reservation reservation) {
        reservation.inJob = true;
    }

    /**
     * Whether a run here entered the job's code (see {@link #entering}); the others check the session's proof before
     * they do.
     */
    boolean anyInJob() {
        return running.values().stream().anyMatch(reservation -> reservation.inJob);
    }

    /** Ends a reservation (run or not); waiters for idleness wake up. */
    void finish(int item, Reservation reservation) {
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

    /** An audit (or a fire it cannot tell of) found the item still running here: it must look again when it ends. */
    void missedWhileBusy(int item) {
        missedWhileBusy.merge(item, Owed.readingLedger(item), Owed::and);
    }

    /** A scheduled fire planned here found the item still running: made up when it ends. */
    void missedByFire(int item, Instant fireTime, long epoch, long session) {
        missedWhileBusy.merge(item, Owed.byFire(item, fireTime, epoch, session), Owed::and);
    }

    /**
     * Ends a run's reservation. An item a fire or an audit found busy meanwhile is not freed but kept reserved for the
     * audit that makes that fire up: freed, it would go first to the item's next fire, whose trigger reserves it at once
     * while the audit still reads the ledger, and with a full pool the make-up (or this session's own claim left to the
     * audit) would lose that race fire after fire. Work owed first runs first.
     *
     * @return what the item is owed, or null: the caller has it made up
     */
    @Nullable
    Owed endRun(int item, Reservation reservation) {
        Owed owed = missedWhileBusy.remove(item);
        if (owed != null) {
            owed = owed.without(reservation.settled());
            if (owed.isNothing()) {
                owed = null;
            }
        }
        synchronized (this) {
            if (owed != null && holding && !reservation.abandoned) {
                Reservation held = new Reservation();
                if (running.replace(item, reservation, held)) {
                    heldForAudit.put(item, held);
                    return owed;
                }
            }
        }
        finish(item, reservation);
        return owed;
    }

    /** The reservations held for the audit now (see {@link #endRun}), as an audit saw them when it began. */
    synchronized Map<Integer, Reservation> heldForAudit() {
        return Map.copyOf(heldForAudit);
    }

    /** Takes the reservation held for the audit, if it still is: the audit's work for the item runs under it. */
    synchronized boolean takeHeld(int item, Reservation held) {
        return heldForAudit.remove(item, held);
    }

    /**
     * Reserves the item for the audit's work: the reservation held for the audit if there is one, otherwise a new one;
     * null if a run has it.
     */
    synchronized @Nullable Reservation reserveForAudit(int item) {
        Reservation held = heldForAudit.remove(item);
        return held != null ? held : reserve(item);
    }

    /** Frees the reservations an audit saw held and did not use: it found no work for those items. */
    void releaseHeld(Map<Integer, Reservation> seen) {
        seen.forEach((item, held) -> {
            if (takeHeld(item, held)) {
                finish(item, held);
            }
        });
    }

    /**
     * This instance stops, and no audit comes any more: every reservation held for one is freed, and a run that ends
     * from now on frees its item whatever found it busy (the items' next owners make those fires up). Without this, a
     * run that ends while the close waits for idleness would keep its item held, and the close would wait its whole
     * grace period for an audit that never comes.
     */
    void stopHolding() {
        synchronized (this) {
            holding = false;
        }
        releaseHeld(heldForAudit());
    }

    /**
     * Interrupts every running item and marks its run abandoned: its claim is released rather than ended. A
     * reservation whose run has not started (its task still queued in the item executor) is released at once and never
     * starts: nothing waits for a task the executor may never run, and none starts after its instance stopped or lost
     * its connection. When its task does run, its claim is handed on unstarted (see {@code ItemRunner}); until then, and
     * should the task never run, the claim stays open for this session's audit or, once the session is gone, the item's
     * next owner.
     */
    void abandonAll() {
        synchronized (this) {
            heldForAudit.clear();
        }
        running.forEach((item, reservation) -> {
            synchronized (reservation) {
                reservation.abandoned = true;
                Thread thread = reservation.thread;
                if (thread != null) {
                    thread.interrupt();
                } else {
                    running.remove(item, reservation);
                }
            }
        });
        synchronized (this) {
            notifyAll();
        }
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
}
