package io.shardingjob.core.internal.ledger;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which claims an instance makes ahead of its schedule's next fire, and what that fire does with them, as pure
 * functions. A claim made ahead is made before anything of its fire is known: what changed meanwhile (an item moved
 * away or disabled, a fire that never came) is judged by one rule, {@link #atFire}, at the fire instant and at each
 * audit before it.
 */
public final class ClaimsAheadRule {

    private ClaimsAheadRule() {}

    /**
     * The items whose claims for the schedule's next fire this instance creates ahead, in the request that records the
     * ends of a fire, so that at the next fire instant no claim stands between the trigger and its items: those it owns
     * and could start now; none when the next fire was already told of (its trigger claims for itself).
     *
     * @param unavailable owned items it could not start now (disabled, run by another live session, busy here) or
     *     already holds a claim of the next fire for
     */
    public static List<Integer> toClaimAhead(
            Collection<Integer> owned, Set<Integer> unavailable, boolean nextFireSeen) {
        if (nextFireSeen) {
            return List.of();
        }
        return owned.stream()
                .filter(item -> !unavailable.contains(item))
                .distinct()
                .sorted()
                .toList();
    }

    /** What a fire does with a claim its instance created ahead for it. */
    public enum AheadFate {
        /**
         * Starts it: nothing changed since it was made. The run still begins with its start write ({@link RunStart}),
         * which fails if the claim was taken over meanwhile.
         */
        RUN,
        /** Records it as not run: its item-fire is not due (see {@link DueRule}). */
        SKIP,
        /**
         * Gives it up for the item's owner to take over: the item is no longer this instance's, or is disabled now
         * though its fire was due.
         */
        RELEASE,
        /**
         * Leaves it to this instance's audit, as any claim of its own it is not running: the item is busy here or run
         * by another session, this instance is cut off, the claim names an earlier session, or whether its item-fire is
         * due is not known yet.
         */
        AUDIT
    }

    /**
     * What a fire does with a claim made ahead for it, from what holds at the fire instant.
     *
     * @param connected whether this instance can start items (connected and registered)
     * @param owned the items this instance owns now, none when it is disabled
     * @param startable whether the item is neither busy here nor run by another live session
     * @param due whether the claim's item-fire is due by the schedule history ({@link DueRule#judge})
     */
    public static AheadFate atFire(
            Claim ahead,
            long sessionId,
            boolean connected,
            boolean jobDisabled,
            Set<Integer> owned,
            Set<Integer> disabledItems,
            boolean startable,
            DueRule.Due due) {
        if (!connected || ahead.sessionId() != sessionId || due == DueRule.Due.NOT_KNOWN_YET) {
            return AheadFate.AUDIT;
        }
        if (due == DueRule.Due.NO) {
            return AheadFate.SKIP;
        }
        if (jobDisabled || disabledItems.contains(ahead.item()) || !owned.contains(ahead.item())) {
            return AheadFate.RELEASE;
        }
        if (!startable) {
            return AheadFate.AUDIT;
        }
        return AheadFate.RUN;
    }
}
