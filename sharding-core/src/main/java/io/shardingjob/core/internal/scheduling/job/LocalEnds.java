package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.ledger.RecordedEnds;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ends of runs on this instance: the ones recorded in the ledger, kept by fire for the leader's keeper until the
 * watermark passes them, the final writes that could not reach ZooKeeper yet, which the audit writes later, and the
 * runs that ended before they began: their start was sent and never answered, so it may be written.
 */
final class LocalEnds {

    /** At most 16,384 ended claims: a few fires of a thousand items, many fires of a few. */
    private final RecordedEnds recorded = new RecordedEnds(16_384);

    private final Map<Slot, Claim> unwritten = new ConcurrentHashMap<>();

    /**
     * Item-fires whose start this process sent without an answer and whose run it has not begun: the claim may say
     * {@code RUNNING} although nothing of it ran, which only this process knows once its session is gone.
     */
    private final Set<Slot> unbegun = ConcurrentHashMap.newKeySet();

    RecordedEnds recorded() {
        return recorded;
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

    Set<Slot> unwrittenSlots() {
        return Set.copyOf(unwritten.keySet());
    }

    /** Whether an item-fire ended here and only its final write is owed. */
    boolean isUnwritten(Slot slot) {
        return unwritten.containsKey(slot);
    }

    /** The start of a run was sent and not answered, and the run did not begin. */
    void startUnanswered(Slot slot) {
        unbegun.add(slot);
    }

    /** A run of the item-fire begins here, or its claim was released as never begun: no longer unbegun. */
    void begun(Slot slot) {
        unbegun.remove(slot);
    }

    boolean neverBegan(Slot slot) {
        return unbegun.contains(slot);
    }

    /**
     * Forgets the recorded ends of fires at or before the ledger's watermark: every item of them is settled. An unbegun
     * run of such a fire is forgotten too; released later, its claim would be released as a run that began, the
     * cautious reading.
     */
    void forgetThrough(Instant watermark) {
        recorded.forgetThrough(watermark);
        unbegun.removeIf(slot -> !slot.fireTime().isAfter(watermark));
    }
}
