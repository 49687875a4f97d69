package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.ledger.RecordedEnds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What this instance knows about its own runs of one job, in memory: the items reserved or running here now (an item
 * runs at most once at a time on an instance), the fires it was told of and the ones it planned, and final claim
 * writes that could not reach ZooKeeper yet. The ledger is the truth about who runs what; this only keeps one
 * instance from racing itself and tells its audit which fires to look at.
 */
final class LocalExecutions {

    /** Fires remembered for audits; older ones are covered by the ledger's watermark or its catch-up horizon. */
    private static final int REMEMBERED_FIRES = 1024;

    private final Map<Integer, Execution> running = new ConcurrentHashMap<>();

    private final NavigableSet<Instant> seenFires = new ConcurrentSkipListSet<>();

    private final NavigableSet<Instant> plannedFires = new ConcurrentSkipListSet<>();

    private final WholeFires wholeFires = new WholeFires(REMEMBERED_FIRES);

    /** At most 16,384 ended claims: a few fires of a thousand items, many fires of a few. */
    private final RecordedEnds recordedEnds = new RecordedEnds(16_384);

    private final Map<Slot, Claim> unwritten = new ConcurrentHashMap<>();

    /** Item-fires this session won a claim for and has not finished recording: not stranded, whatever a read says. */
    private final Set<Slot> inFlight = ConcurrentHashMap.newKeySet();

    /** The item-fires in flight whose run ended, with their end queued or being written. */
    private final Set<Slot> ending = ConcurrentHashMap.newKeySet();

    private final Set<Integer> missedWhileBusy = ConcurrentHashMap.newKeySet();

    /**
     * Items whose run here ended after a fire (or an audit) found them busy: still reserved, for the audit that makes
     * that fire up; guarded by this (each entry is also in {@code running}).
     */
    private final Map<Integer, Execution> heldForAudit = new HashMap<>();

    /** Claims this session created ahead for fires it has not been told of yet, by fire and item; guarded by this. */
    private final NavigableMap<Instant, Map<Integer, Claim>> ahead = new TreeMap<>();

    /** Owned items another live session still runs, with its claim, as the last audit saw them. */
    private volatile Map<Integer, Claim> runningElsewhere = Map.of();

    /** The epoch of the assignment the last audit looked at, and the items this instance owned under it. */
    private long auditedEpoch = -1;

    private Set<Integer> auditedItems = Set.of();

    /** The claims ahead in a request not answered yet. */
    private final Set<Slot> requestedAhead = ConcurrentHashMap.newKeySet();

    /** The fires waiting for the audit of an assignment; guarded by this. */
    private final List<AuditWaiter> auditWaiters = new ArrayList<>();

    /** What an audit found for the assignment of {@code epoch}; fires waiting for it go on. */
    void audited(long epoch, Set<Integer> owned, Map<Integer, Claim> elsewhere) {
        List<CompletableFuture<Void>> woken = new ArrayList<>();
        synchronized (this) {
            auditedEpoch = epoch;
            auditedItems = Set.copyOf(owned);
            runningElsewhere = Map.copyOf(elsewhere);
            auditWaiters.removeIf(waiter -> {
                if (waiter.epoch() <= epoch) {
                    woken.add(waiter.audited());
                    return true;
                }
                // Timed out: the fire went on without this audit.
                return waiter.audited().isDone();
            });
        }
        woken.forEach(audited -> audited.complete(null));
    }

    /**
     * Whether a run under the assignment of {@code epoch} may start the item here (a fire plans it, or a queued run
     * leaves the queue): no other live session runs it, as far as the audits know. An audit of this very assignment
     * looked; or the last audit looked at the assignment just before it, when the item was already this instance's:
     * with exactly one assignment written since, no other owner can have come and gone in between. Any other gap (an
     * item that just moved here, or a cache that skipped an assignment) waits for an audit: the item may still run on an
     * owner this instance never saw. A run the audit saw elsewhere is checked again in the ledger ({@code stillRuns}):
     * the audit only polls, and the run may have ended since.
     */
    boolean mayStart(int item, long epoch, Predicate<Claim> stillRuns) {
        Claim other = runningElsewhere.get(item);
        if (other != null && !stillRuns.test(other)) {
            forgetElsewhere(item, other);
            other = null;
        }
        synchronized (this) {
            return other == null
                    && (epoch == auditedEpoch || (epoch == auditedEpoch + 1 && auditedItems.contains(item)));
        }
    }

    /** The owned items another live session ran when the last audit looked. */
    Set<Integer> elsewhereItems() {
        return runningElsewhere.keySet();
    }

    private synchronized void forgetElsewhere(int item, Claim ended) {
        if (ended.equals(runningElsewhere.get(item))) {
            Map<Integer, Claim> rest = new HashMap<>(runningElsewhere);
            rest.remove(item);
            runningElsewhere = Map.copyOf(rest);
        }
    }

    /**
     * Completes once an audit has looked at the assignment of {@code epoch} (or a later one), at most the timeout
     * later: a fire's wait that holds no thread.
     */
    synchronized CompletableFuture<Void> whenAudited(long epoch, Duration timeout) {
        if (auditedEpoch >= epoch) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> audited =
                new CompletableFuture<Void>().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
        auditWaiters.removeIf(waiter -> waiter.audited().isDone());
        auditWaiters.add(new AuditWaiter(epoch, audited));
        return audited;
    }

    /** A fire waiting for the audit of an assignment. */
    private record AuditWaiter(long epoch, CompletableFuture<Void> audited) {}

    synchronized long auditedEpoch() {
        return auditedEpoch;
    }

    /** Reserves the item for a run; null if a run of this instance already has it. */
    @Nullable
    Execution reserve(int item) {
        Execution reservation = new Execution();
        return running.putIfAbsent(item, reservation) == null ? reservation : null;
    }

    /**
     * Attaches the calling thread to the reservation; false if it was released meanwhile, or abandoned before it
     * started (see {@link #abandonAll()}).
     */
    boolean start(int item, Execution reservation) {
        synchronized (reservation) {
            if (running.get(item) != reservation || reservation.abandoned) {
                return false;
            }
            reservation.thread = Thread.currentThread();
            return true;
        }
    }

    /** This session won the claim: its run is this instance's business until its end is recorded. */
    void claimed(Claim claim) {
        inFlight.add(new Slot(claim.item(), claim.fireTime()));
    }

    /** The claim's end is recorded (or owed, see {@link #unwritten}), or the run never started. */
    void settled(Claim claim) {
        Slot slot = new Slot(claim.item(), claim.fireTime());
        inFlight.remove(slot);
        ending.remove(slot);
    }

    /**
     * The claim's run ended and its end is about to be written.
     *
     * @return whether no other item of its fire still runs here: its end need not wait for theirs
     */
    boolean endingLastOfItsFire(Claim claim) {
        Slot slot = new Slot(claim.item(), claim.fireTime());
        ending.add(slot);
        return inFlight.stream()
                .noneMatch(other -> other.fireTime().equals(slot.fireTime()) && !ending.contains(other));
    }

    /**
     * The item-fires this session holds a claim for and is running or about to run, and those it is claiming ahead in a
     * request not answered yet: the audit must not take the claims such a request created for stranded.
     */
    Set<Slot> inFlight() {
        return Stream.concat(inFlight.stream(), requestedAhead.stream()).collect(Collectors.toSet());
    }

    /** Whether this session holds a claim of the fire that is in flight (see {@link #inFlight()}). */
    boolean holdsOpenClaimOf(Instant fireTime) {
        return Stream.concat(inFlight.stream(), requestedAhead.stream())
                .anyMatch(slot -> slot.fireTime().equals(fireTime));
    }

    /** Claims ahead are being requested: in flight until {@link #answeredAhead} says what came of the request. */
    void requestingAhead(Collection<Claim> claims) {
        claims.forEach(claim -> requestedAhead.add(new Slot(claim.item(), claim.fireTime())));
    }

    /** The request for these claims ahead was answered (the ones won are kept by {@link #claimedAhead}) or failed. */
    void answeredAhead(Collection<Claim> claims) {
        claims.forEach(claim -> requestedAhead.remove(new Slot(claim.item(), claim.fireTime())));
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

    /** A fire (or an audit) found the item still running here: the audit must look again when it ends. */
    void missedWhileBusy(int item) {
        missedWhileBusy.add(item);
    }

    /**
     * Ends a run's reservation. An item a fire or an audit found busy meanwhile is not freed but kept reserved for the
     * audit that makes that fire up: freed, it would go first to the item's next fire, whose trigger reserves it at once
     * while the audit still reads the ledger, and with a full pool the make-up (or this session's own claim left to the
     * audit) would lose that race fire after fire. Work owed first runs first.
     *
     * @return whether the item's audit is owed: the caller asks for one
     */
    boolean endRun(int item, Execution reservation) {
        boolean owed = missedWhileBusy.remove(item);
        synchronized (this) {
            if (owed && !reservation.abandoned) {
                Execution held = new Execution();
                if (running.replace(item, reservation, held)) {
                    heldForAudit.put(item, held);
                    return true;
                }
            }
        }
        finish(item, reservation);
        return owed;
    }

    /** The reservations held for the audit now (see {@link #endRun}), as an audit saw them when it began. */
    synchronized Map<Integer, Execution> heldForAudit() {
        return Map.copyOf(heldForAudit);
    }

    /** Takes the reservation held for the audit, if it still is: the audit's work for the item runs under it. */
    synchronized boolean takeHeld(int item, Execution held) {
        return heldForAudit.remove(item, held);
    }

    /**
     * Reserves the item for the audit's work: the reservation held for the audit if there is one, otherwise a new one;
     * null if a run has it.
     */
    synchronized @Nullable Execution reserveForAudit(int item) {
        Execution held = heldForAudit.remove(item);
        return held != null ? held : reserve(item);
    }

    /** Frees the reservations an audit saw held and did not use: it found no work for those items. */
    void releaseHeld(Map<Integer, Execution> seen) {
        seen.forEach((item, held) -> {
            if (takeHeld(item, held)) {
                finish(item, held);
            }
        });
    }

    /** Frees every reservation held for the audit: this instance stops, and no audit comes any more. */
    void releaseAllHeld() {
        releaseHeld(heldForAudit());
    }

    /**
     * The scheduler told this instance of a fire, whatever it could do about it.
     *
     * @return the claims this session created ahead for the fire, by item: the fire's to run or hand on now
     */
    synchronized Map<Integer, Claim> sawFire(Instant fireTime) {
        remember(seenFires, fireTime);
        Map<Integer, Claim> claims = ahead.remove(fireTime);
        return claims == null ? Map.of() : claims;
    }

    /**
     * Keeps claims created ahead for a fire until its trigger takes them, and counts them in flight meanwhile: they are
     * this session's business, not stranded.
     *
     * @return false, keeping nothing, when the fire came meanwhile: its trigger found them in the ledger as this
     *     session's, or left them to the audit
     */
    synchronized boolean claimedAhead(Instant fireTime, Collection<Claim> claims) {
        if (seenFires.contains(fireTime) || claims.isEmpty()) {
            return false;
        }
        Map<Integer, Claim> ofFire = ahead.computeIfAbsent(fireTime, fire -> new TreeMap<>());
        claims.forEach(claim -> {
            ofFire.put(claim.item(), claim);
            inFlight.add(new Slot(claim.item(), claim.fireTime()));
        });
        return true;
    }

    /** The items this session holds a claim of the fire for, made ahead. */
    synchronized Set<Integer> aheadItems(Instant fireTime) {
        Map<Integer, Claim> claims = ahead.get(fireTime);
        return claims == null ? Set.of() : Set.copyOf(claims.keySet());
    }

    /**
     * Takes the claims made ahead that match: their caller hands them on (releases them, or leaves them to the audit
     * by calling {@link #settled}).
     */
    synchronized List<Claim> takeAhead(Predicate<Claim> which) {
        List<Claim> taken = new ArrayList<>();
        for (Iterator<Map<Integer, Claim>> fires = ahead.values().iterator(); fires.hasNext(); ) {
            Map<Integer, Claim> ofFire = fires.next();
            for (Iterator<Claim> claims = ofFire.values().iterator(); claims.hasNext(); ) {
                Claim claim = claims.next();
                if (which.test(claim)) {
                    taken.add(claim);
                    claims.remove();
                }
            }
            if (ofFire.isEmpty()) {
                fires.remove();
            }
        }
        return taken;
    }

    /** This instance finished planning a fire: its claims for it are written, or were refused. */
    void planned(Instant fireTime) {
        remember(plannedFires, fireTime);
    }

    /** The fires whose trigger won every item this instance owned: see {@link WholeFires}. */
    WholeFires wholeFires() {
        return wholeFires;
    }

    /** The ends this instance recorded, by fire, for the leader's keeper. */
    RecordedEnds recordedEnds() {
        return recordedEnds;
    }

    /** Whether the scheduler told this instance of the fire (and it is not settled yet). */
    boolean hasSeen(Instant fireTime) {
        return seenFires.contains(fireTime);
    }

    NavigableSet<Instant> seenFires() {
        return seenFires;
    }

    boolean hasPlanned(Instant fireTime) {
        return plannedFires.contains(fireTime);
    }

    /** Forgets fires at or before the ledger's watermark: every item of them is settled. */
    void forgetFiresThrough(Instant watermark) {
        seenFires.headSet(watermark, true).clear();
        plannedFires.headSet(watermark, true).clear();
        wholeFires.forgetThrough(watermark);
        recordedEnds.forgetThrough(watermark);
    }

    private static void remember(NavigableSet<Instant> fires, Instant fireTime) {
        fires.add(fireTime);
        while (fires.size() > REMEMBERED_FIRES) {
            fires.pollFirst();
        }
    }

    /** A final write of a claim (how it ended) that could not reach ZooKeeper: the audit writes it later. */
    void unwritten(Claim claim) {
        unwritten.put(new Slot(claim.item(), claim.fireTime()), claim);
    }

    /** The final writes still owed, taken: the caller writes them or hands them back with {@link #unwritten}. */
    List<Claim> takeUnwritten() {
        List<Claim> owed = List.copyOf(unwritten.values());
        owed.forEach(claim -> unwritten.remove(new Slot(claim.item(), claim.fireTime()), claim));
        return owed;
    }

    /** The item-fires that ended here and whose final write is owed. */
    Set<Slot> unwrittenSlots() {
        return Set.copyOf(unwritten.keySet());
    }

    /** Whether an item-fire ended here and only its final write is owed. */
    boolean isUnwritten(Slot slot) {
        return unwritten.containsKey(slot);
    }

    /**
     * Interrupts every running item and marks its run abandoned: its claim is released rather than ended. A
     * reservation whose run has not started (its task still queued in the item executor) is released at once and never
     * starts: nothing waits for a task the executor may never run, and none starts after its instance stopped or lost
     * its connection. When its task does run, its claim is handed on unstarted (see {@code FireRunner}); until then, and
     * should the task never run, the claim stays open for this session's audit or, once the session is gone, the item's
     * next owner.
     */
    void abandonAll() {
        synchronized (this) {
            heldForAudit.clear();
        }
        running.forEach((item, execution) -> {
            synchronized (execution) {
                execution.abandoned = true;
                Thread thread = execution.thread;
                if (thread != null) {
                    thread.interrupt();
                } else {
                    running.remove(item, execution);
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

    /** One reservation of one item: the thread running it once it starts, and whether it was abandoned. */
    static final class Execution {

        private volatile @Nullable Thread thread;

        private volatile boolean abandoned;

        boolean isAbandoned() {
            return abandoned;
        }
    }
}
