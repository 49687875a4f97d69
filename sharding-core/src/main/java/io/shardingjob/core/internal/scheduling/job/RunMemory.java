package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.ledger.RecordedEnds;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What this instance remembers of its runs of one job, by item and fire, in memory: the items reserved or running
 * here, the claims this session holds open, the fires it knows of, the ends of its runs and what its last audit saw.
 * The ledger is the truth about who runs what; this only keeps one instance from racing itself and tells its audit which
 * fires to look at.
 *
 * <p>The ends are kept here: the ones recorded in the ledger, by fire for the leader's keeper until the watermark passes
 * them; the final writes that could not reach ZooKeeper yet, which the audit writes later; and the runs that ended
 * before they began, whose start was sent and never answered, so it may be written.
 *
 * <p>Its other parts, each with its own state and lock, are this package's; the stages see this one type. The methods
 * are grouped by who calls them: the run's transitions ({@code ItemRun}, its only caller, which ArchUnit keeps), the
 * planning of a fire before any run of it exists, the audit, and the close.
 */
public final class RunMemory {

    private final Reservations reservations = new Reservations();
    private final LocalFires fires = new LocalFires();
    private final OpenClaims claims = new OpenClaims(fires);
    private final LastAudit lastAudit = new LastAudit();

    /** At most 16,384 ended claims: a few fires of a thousand items, many fires of a few. */
    private final RecordedEnds recorded = new RecordedEnds(16_384);

    private final Map<Slot, Claim> unwritten = new ConcurrentHashMap<>();

    /**
     * Item-fires whose start this process sent without an answer and whose run it has not begun: the claim may say
     * {@code RUNNING} although nothing of it ran, which only this process knows once its session is gone.
     */
    private final Set<Slot> unbegun = ConcurrentHashMap.newKeySet();

    // ---- The run's transitions: ItemRun only.

    public boolean attach(int item, Reservation reservation) {
        return reservations.start(item, reservation);
    }

    /** The run enters the job's code: no longer one that never began, and counted by the proof's checks. */
    public void entering(Slot slot, Reservation reservation) {
        unbegun.remove(slot);
        reservations.entering(reservation);
    }

    public boolean endingLastOfItsFire(Claim claim) {
        return claims.endingLastOfItsFire(claim);
    }

    public void startUnanswered(Slot slot) {
        unbegun.add(slot);
    }

    /** The run's claim is settled and its item freed: see {@link Reservations#endRun}. */
    public @Nullable Owed released(Claim claim, Reservation reservation) {
        claims.settled(claim);
        reservation.settles(claim.fireTime());
        return reservations.endRun(claim.item(), reservation);
    }

    public void settled(Claim claim) {
        claims.settled(claim);
    }

    public void notClaimedWhole(Instant fireTime) {
        fires.notWhole(fireTime);
    }

    // ---- Planning a fire, before its runs exist.

    public @Nullable Reservation reserve(int item) {
        return reservations.reserve(item);
    }

    /** Frees a reservation no run took: see {@link Reservations#finish}. */
    public void free(int item, Reservation reservation) {
        reservations.finish(item, reservation);
    }

    public void missedWhileBusy(int item) {
        reservations.missedWhileBusy(item);
    }

    /**
     * A fire found the item busy here and did not create this claim of it: known here when the fire is the schedule's;
     * an operator's or an upstream's fire has its origin (the job parameter) in its node, which the audit reads.
     */
    public void missedBy(Claim notCreated) {
        if (notCreated.source() == ExecutionSource.NORMAL) {
            missedByFire(notCreated.item(), notCreated.fireTime(), notCreated.epoch(), notCreated.sessionId());
        } else {
            reservations.missedWhileBusy(notCreated.item());
        }
    }

    /** A scheduled fire planned here under this assignment and session found the item busy here. */
    public void missedByFire(int item, Instant fireTime, long epoch, long session) {
        reservations.missedByFire(item, fireTime, epoch, session);
    }

    public Set<Integer> runningItems() {
        return reservations.runningItems();
    }

    public Map<Integer, Claim> sawFire(Instant fireTime) {
        return claims.sawFire(fireTime);
    }

    public void claimed(Claim claim) {
        claims.claimed(claim);
    }

    public void requestingAhead(Collection<Claim> asked) {
        claims.requestingAhead(asked);
    }

    public void answeredAhead(Collection<Claim> asked) {
        claims.answeredAhead(asked);
    }

    public boolean claimedAhead(Instant fireTime, Collection<Claim> made) {
        return claims.claimedAhead(fireTime, made);
    }

    public Set<Integer> aheadItems(Instant fireTime) {
        return claims.aheadItems(fireTime);
    }

    public List<Claim> takeAhead(Predicate<Claim> which) {
        return claims.takeAhead(which);
    }

    public void planned(Instant fireTime) {
        fires.planned(fireTime);
    }

    public boolean hasPlanned(Instant fireTime) {
        return fires.hasPlanned(fireTime);
    }

    public boolean hasSeen(Instant fireTime) {
        return fires.hasSeen(fireTime);
    }

    public void claimedWhole(Instant fireTime, long epoch, long session) {
        fires.claimedWhole(fireTime, epoch, session);
    }

    public boolean mayStart(int item, long epoch, Predicate<Claim> stillRuns) {
        return lastAudit.mayStart(item, epoch, stillRuns);
    }

    public CompletableFuture<Void> whenAudited(long epoch, Duration timeout) {
        return lastAudit.whenAudited(epoch, timeout);
    }

    public long auditedEpoch() {
        return lastAudit.auditedEpoch();
    }

    public Set<Integer> elsewhereItems() {
        return lastAudit.elsewhereItems();
    }

    // ---- The audit.

    public void audited(long epoch, Set<Integer> owned, Map<Integer, Claim> elsewhere) {
        lastAudit.audited(epoch, owned, elsewhere);
    }

    public Map<Integer, Reservation> heldForAudit() {
        return reservations.heldForAudit();
    }

    public boolean takeHeld(int item, Reservation held) {
        return reservations.takeHeld(item, held);
    }

    public @Nullable Reservation reserveForAudit(int item) {
        return reservations.reserveForAudit(item);
    }

    public void releaseHeld(Map<Integer, Reservation> seen) {
        reservations.releaseHeld(seen);
    }

    /** The audit's own work for an item ended: see {@link Reservations#endRun}. */
    public @Nullable Owed endRun(int item, Reservation reservation) {
        return reservations.endRun(item, reservation);
    }

    public Set<Slot> inFlight() {
        return claims.inFlight();
    }

    public boolean holdsOpenClaimOf(Instant fireTime) {
        return claims.holdsOpenClaimOf(fireTime);
    }

    public NavigableSet<Instant> seenFires() {
        return fires.seen();
    }

    public boolean isWhole(Instant fireTime, long epoch, long session) {
        return fires.isWhole(fireTime, epoch, session);
    }

    /** A final write of a claim (how it ended) that could not reach ZooKeeper: the audit writes it later. */
    public void unwritten(Claim claim) {
        unwritten.put(new Slot(claim.item(), claim.fireTime()), claim);
    }

    /** The final writes still owed, taken: the caller writes them or hands them back with {@link #unwritten}. */
    public List<Claim> takeUnwritten() {
        List<Claim> owed = List.copyOf(unwritten.values());
        owed.forEach(claim -> unwritten.remove(new Slot(claim.item(), claim.fireTime()), claim));
        return owed;
    }

    public Set<Slot> unwrittenSlots() {
        return Set.copyOf(unwritten.keySet());
    }

    /** Whether an item-fire ended here and only its final write is owed. */
    public boolean isUnwritten(Slot slot) {
        return unwritten.containsKey(slot);
    }

    public boolean neverBegan(Slot slot) {
        return unbegun.contains(slot);
    }

    /** An earlier session's run of the item-fire was released: no run of it is unbegun any more. */
    public void releasedUnbegun(Slot slot) {
        unbegun.remove(slot);
    }

    public RecordedEnds recordedEnds() {
        return recorded;
    }

    /**
     * Forgets the fires and ends at or before the ledger's watermark: every item of them is settled. An unbegun run of
     * such a fire is forgotten too; released later, its claim would be released as a run that began, the cautious
     * reading.
     */
    public void forgetThrough(Instant watermark) {
        fires.forgetThrough(watermark);
        recorded.forgetThrough(watermark);
        unbegun.removeIf(slot -> !slot.fireTime().isAfter(watermark));
    }

    // ---- The close, and the session's guard.

    public void stopHolding() {
        reservations.stopHolding();
    }

    public void abandonAll() {
        reservations.abandonAll();
    }

    public boolean awaitIdle(Duration timeout) {
        return reservations.awaitIdle(timeout);
    }

    public boolean isIdle() {
        return reservations.isIdle();
    }

    public boolean anyInJob() {
        return reservations.anyInJob();
    }
}
