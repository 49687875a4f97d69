package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.Follower;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
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
     * One follower's write: the origin of its fire to create, or the new origin of its existing fire.
     *
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
     */
    static boolean holds(FollowOn on, FireView upstream, int dueCount) {
        if (upstream.origin().isAbandoned()) {
            return false;
        }
        if (on == FollowOn.COMPLETION) {
            return true;
        }
        int due = Math.min(upstream.total(), dueCount);
        return due > 0
                && IntStream.range(0, due)
                        .mapToObj(upstream.claims()::get)
                        .allMatch(claim -> claim != null && claim.state() == ClaimState.DONE);
    }

    /**
     * The write into one follower's fire.
     *
     * @param chain the job whose fire began the upstream fire's chain ({@link FireOrigin#chainOr})
     * @param holds whether it completed as the follower's {@code on} asks ({@link #holds})
     * @param existing the origin of the follower's fire at the same time, or null when it has no node
     * @param attended whether an instance of the follower is registered
     */
    static Decision decide(
            String upstream,
            String chain,
            Follower follower,
            boolean holds,
            @Nullable FireOrigin existing,
            boolean attended) {
        if (follower.itemWise()) {
            return decideItemWise(upstream, chain, existing);
        }
        if (existing == null) {
            if (!holds) {
                return Decision.NOTHING;
            }
            FireOrigin created = FireOrigin.after(upstream, follower.upstreams(), !attended, chain);
            return new Decision(created, null, !created.isAwaiting());
        }
        if (holds && upstream.equals(existing.abandonedBy())) {
            // Abandoned by this upstream's fire, which an operator's re-run of its failed items made succeed.
            FireOrigin resumed = existing.abandonedBy(null).completedBy(upstream);
            return new Decision(null, resumed, !resumed.isAwaiting());
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

    /**
     * An item-wise follower's fire, once the upstream fire completed: its items were decided one by one
     * ({@link #itemWise}), so the fire is never abandoned; it stops awaiting, and its instances audit it at once.
     */
    private static Decision decideItemWise(String upstream, String chain, @Nullable FireOrigin existing) {
        if (existing == null) {
            FireOrigin created = FireOrigin.after(upstream, List.of(upstream), false, chain);
            return new Decision(created, null, true);
        }
        if (!existing.isAwaiting() || !existing.awaiting().contains(upstream)) {
            return Decision.NOTHING;
        }
        return new Decision(null, existing.completedBy(upstream), true);
    }

    /**
     * The origin of an item-wise follower's fire recorded before its upstream fire completed: it awaits that fire, and
     * holds only the items whose upstream item ended as it follows them.
     */
    static FireOrigin itemWiseAwaiting(String upstream, String chain) {
        return FireOrigin.awaiting(List.of(upstream), false, chain);
    }

    /** What an item-wise follower's item of the fire becomes, from the upstream's item. */
    enum ItemRecord {
        /** Nothing yet: the upstream item has not ended, or the follower's item is recorded already. */
        NONE,
        /** Handed on: the owner of the follower's item takes it over and runs it, as the fire's own run. */
        HAND_ON,
        /** Skipped: the upstream item ended otherwise than {@code on} asks, and the follower's item never runs. */
        SKIP
    }

    /**
     * What an item-wise follower's item becomes: handed on as soon as the upstream item ended as {@code on} asks
     * (succeeded, or ended at all), skipped once the upstream fire completed (every due item ended) without it doing
     * so.
     *
     * @param upstream the upstream item's claim, or null when it has none
     * @param recorded whether the follower's item already has a claim
     */
    static ItemRecord itemWise(FollowOn on, @Nullable Claim upstream, boolean recorded, boolean completed) {
        if (recorded) {
            return ItemRecord.NONE;
        }
        boolean ended = upstream != null && !upstream.state().isOpen();
        boolean holds = ended && (on == FollowOn.COMPLETION || upstream.state() == ClaimState.DONE);
        if (holds) {
            return ItemRecord.HAND_ON;
        }
        return completed ? ItemRecord.SKIP : ItemRecord.NONE;
    }

    /** The claim an upstream writes for an item-wise follower's item: nobody's yet, or skipped. */
    static Claim itemClaim(ItemRecord record, int item, Instant fireTime, int total, Instant at) {
        boolean skip = record == ItemRecord.SKIP;
        return Claim.first(item, fireTime, "", 0, ExecutionSource.UPSTREAM, 0, total, at)
                .with(skip ? ClaimState.SKIPPED : ClaimState.HANDED_ON, skip ? at : null);
    }

    /**
     * Whether an upstream's fire at a time may still complete, and record the follower's fire it is awaited for. A fire
     * with a node may until its completion is done. Without one, it may still get one unless the upstream's watermark
     * passed the time without listing it open (every fire of the upstream up to then settled without it), or the time
     * is beyond the catch-up horizon: a fire that old is not made up, and no upstream fire is started for it any more.
     *
     * @param upstreamMark the upstream ledger's watermark, or null when it has no ledger (not started yet)
     * @param upstreamNote the note of the upstream's fire at that time, or null when it has no node
     * @param horizon the catch-up horizon: now minus the follower's {@code catchUpHorizon}
     */
    static boolean canStillComplete(
            Instant fireTime, @Nullable Watermark upstreamMark, @Nullable String upstreamNote, Instant horizon) {
        if (upstreamNote != null) {
            return !LedgerCompletions.isCompletedNote(upstreamNote);
        }
        boolean passed = upstreamMark != null
                && !fireTime.isAfter(upstreamMark.settled())
                && !upstreamMark.stillOpen().contains(fireTime);
        return !passed && !fireTime.isBefore(horizon);
    }
}
