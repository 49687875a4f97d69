package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.util.Set;

/**
 * The writes of a request that go through only while the assignment is the one they were decided under: a {@code check}
 * of the assignment node's version in the same multi-operation. A run's start carries it, so that a start decided
 * before a reshard moved its item fails, and whoever reads the ledger after the new assignment sees every run started
 * under the old one (a follower applies transactions in order): the item's new owner waits for them.
 *
 * <p>So does every request that creates a claim with its start written (failover on: a fire's first claims, claims made
 * ahead), since its run may begin with no other write. Refused by the check, or with no version to check, such a claim
 * is created reserved ({@link #unstarted}), and its run writes its start under the check.
 *
 * @param version the assignment node's version the writes were decided under; -1 when unknown
 * @param slots the item-fires whose owner writes it guards
 */
public record AssignmentGuard(int version, Set<Slot> slots) {

    public static final AssignmentGuard NONE = new AssignmentGuard(-1, Set.of());

    public AssignmentGuard {
        slots = Set.copyOf(slots);
    }

    /** Guards the claims created with their starts only: those of a fire, or made ahead, decided under {@code version}. */
    public static AssignmentGuard ofCreates(int version) {
        return new AssignmentGuard(version, Set.of());
    }

    boolean covers(Claim claim) {
        return slots.contains(new Slot(claim.item(), claim.fireTime()));
    }

    /** Whether a new claim needs the check: it is created with its start written. */
    static boolean coversCreate(Claim claim) {
        return claim.state() == ClaimState.RUNNING;
    }

    /** A new claim as it is created when its start cannot go with it: reserved, its run not started. */
    static Claim unstarted(Claim claim) {
        return coversCreate(claim) ? claim.with(ClaimState.RESERVED, null) : claim;
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
