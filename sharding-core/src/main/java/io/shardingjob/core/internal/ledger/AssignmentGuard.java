package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.util.Set;

/**
 * The owner writes of a request that go through only while the assignment is the one they were decided under: a
 * {@code check} of the assignment node's version, in the same multi-operation. A run's start carries it, so that no run
 * starts under an outdated assignment: once a reshard moved an item, a start decided before it fails, and whoever reads
 * the ledger after the new assignment sees every run started under the old one (a follower applies transactions in
 * order), so the item's new owner waits for them.
 *
 * @param version the assignment node's version the writes were decided under
 * @param slots the item-fires whose writes it guards
 */
public record AssignmentGuard(int version, Set<Slot> slots) {

    /** Guards nothing. */
    public static final AssignmentGuard NONE = new AssignmentGuard(-1, Set.of());

    public AssignmentGuard {
        slots = Set.copyOf(slots);
    }

    boolean covers(Claim claim) {
        return slots.contains(new Slot(claim.item(), claim.fireTime()));
    }

    /** A guarded write refused: a newer assignment was written than the one it was decided under. */
    public static final class Moved extends RuntimeException {

        private static final long serialVersionUID = 1L;

        Moved(Claim claim) {
            super(
                    "the assignment changed before item " + claim.item() + " of the fire at " + claim.fireTime()
                            + " could start",
                    null,
                    false,
                    false);
        }
    }
}
