package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import org.jspecify.annotations.Nullable;

/**
 * What the completion of an upstream fire writes into a follower's fire at the same time: a pure function of the
 * upstream fire, the follower's setting and the follower's fire node as read. Whoever wins the upstream fire's
 * completion writes it in the same multi-operation as its note, so every upstream completion is recorded in each
 * follower exactly once: a completion taken over repeats a decision that then changes nothing.
 */
final class ChainRule {

    private ChainRule() {}

    /**
     * One follower's write.
     *
     * @param create the origin of the follower's fire to create, or null
     * @param update the new origin of the follower's existing fire, or null
     * @param announce whether the follower's instances are told to run the fire now: no upstream is awaited any more
     */
    record Decision(@Nullable FireOrigin create, @Nullable FireOrigin update, boolean announce) {

        static final Decision NOTHING = new Decision(null, null, false);

        boolean writes() {
            return create != null || update != null;
        }
    }

    /**
     * Whether an upstream fire, settled, completed as a follower's {@code on} asks: under {@link FollowOn#SUCCESS}
     * every due item succeeded (one skipped or failed stops the chain), under {@link FollowOn#COMPLETION} it ended at
     * all. A fire its own upstream abandoned completed neither way: nothing of it ran.
     *
     * @param dueCount how many of its items were due ({@link DueRule#dueCount})
     */
    static boolean holds(FollowOn on, FireView upstream, int dueCount) {
        if (upstream.origin().isAbandoned()) {
            return false;
        }
        if (on == FollowOn.COMPLETION) {
            return true;
        }
        int due = Math.min(upstream.total(), dueCount);
        if (due == 0) {
            return false;
        }
        for (int item = 0; item < due; item++) {
            Claim claim = upstream.claims().get(item);
            if (claim == null || claim.state() != ClaimState.DONE) {
                return false;
            }
        }
        return true;
    }

    /**
     * The write into one follower's fire.
     *
     * @param upstream the job whose fire completed
     * @param holds whether it completed as the follower's {@code on} asks ({@link #holds})
     * @param existing the origin of the follower's fire at the same time, or null when it has no node
     * @param attended whether an instance of the follower is registered
     */
    static Decision decide(
            String upstream, Follower follower, boolean holds, @Nullable FireOrigin existing, boolean attended) {
        if (existing == null) {
            if (!holds) {
                return Decision.NOTHING;
            }
            FireOrigin created = FireOrigin.after(upstream, follower.upstreams(), !attended);
            return new Decision(created, null, !created.isAwaiting());
        }
        if (!existing.followsUpstream()
                || existing.isAbandoned()
                || existing.after().contains(upstream)) {
            // The follower's own scheduled or manual fire at that time, one already given up, or this completion
            // recorded before (its completer was taken over): nothing to add.
            return Decision.NOTHING;
        }
        if (!holds) {
            return new Decision(null, existing.abandonedBy(upstream), false);
        }
        FireOrigin completed = existing.completedBy(upstream);
        return new Decision(null, completed, !completed.isAwaiting());
    }
}
