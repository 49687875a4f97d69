package io.shardingjob.core.internal.scheduling.job;

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
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * What this instance remembers of its runs of one job, by item and fire, in memory: the items reserved or running
 * here, the claims this session holds open, the fires it knows of, the ends of its runs (recorded or owed) and what its
 * last audit saw. The ledger is the truth about who runs what; this only keeps one instance from racing itself and
 * tells its audit which fires to look at.
 *
 * <p>Its parts, each with its own state and lock, are this package's; the stages see this one type. The methods are
 * grouped by who calls them: the run's transitions ({@code ItemRun}, its only caller, which ArchUnit keeps), the
 * planning of a fire before any run of it exists, the audit, and the close.
 */
public final class RunMemory {

    private final Reservations reservations = new Reservations();
    private final LocalFires fires = new LocalFires();
    private final OpenClaims claims = new OpenClaims(fires);
    private final LocalEnds ends = new LocalEnds();
    private final LastAudit lastAudit = new LastAudit();

    // ---- The run's transitions: ItemRun only.

    public boolean attach(int item, Reservation reservation) {
        return reservations.start(item, reservation);
    }

    /** The run enters the job's code: no longer one that never began, and counted by the proof's checks. */
    public void entering(Slot slot, Reservation reservation) {
        ends.begun(slot);
        reservations.entering(reservation);
    }

    public boolean endingLastOfItsFire(Claim claim) {
        return claims.endingLastOfItsFire(claim);
    }

    public void startUnanswered(Slot slot) {
        ends.startUnanswered(slot);
    }

    /** The run's claim is settled and its item freed: see {@link Reservations#endRun}. */
    public boolean released(Claim claim, Reservation reservation) {
        claims.settled(claim);
        return reservations.endRun(claim.item(), reservation);
    }

    public void settled(Claim claim) {
        claims.settled(claim);
    }

    public void notClaimedWhole(Instant fireTime) {
        fires.whole().released(fireTime);
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
        fires.whole().claimed(fireTime, epoch, session);
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
    public boolean endRun(int item, Reservation reservation) {
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
        return fires.whole().isWhole(fireTime, epoch, session);
    }

    public void unwritten(Claim claim) {
        ends.unwritten(claim);
    }

    public List<Claim> takeUnwritten() {
        return ends.takeUnwritten();
    }

    public Set<Slot> unwrittenSlots() {
        return ends.unwrittenSlots();
    }

    public boolean isUnwritten(Slot slot) {
        return ends.isUnwritten(slot);
    }

    public boolean neverBegan(Slot slot) {
        return ends.neverBegan(slot);
    }

    /** An earlier session's run of the item-fire was released: no run of it is unbegun any more. */
    public void releasedUnbegun(Slot slot) {
        ends.begun(slot);
    }

    public RecordedEnds recordedEnds() {
        return ends.recorded();
    }

    /** Forgets the fires and ends at or before the ledger's watermark: every item of them is settled. */
    public void forgetThrough(Instant watermark) {
        fires.forgetThrough(watermark);
        ends.forgetThrough(watermark);
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
