package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.MisfirePolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * The ledger's decisions, as pure functions of what was read from it: which missed fires to make up, coalesce or skip,
 * and which fires to retire; which claims to take over is {@link TakeOverRule}'s, and what a fire does with the claims
 * made ahead of it {@link ClaimsAheadRule}'s. ZooKeeper then decides the races these plans run into (a {@code create}
 * that finds the node, a {@code setData} at a stale version), so a plan made on a stale read is safe: it can only lose.
 */
public final class LedgerRules {

    /**
     * How late a fire must be before an instance that did not plan it counts its unclaimed items as missed: their owner
     * may be slow.
     */
    public static final Duration LATENESS = Duration.ofSeconds(2);

    private LedgerRules() {}

    /** One item of one fire. */
    public record Slot(int item, Instant fireTime) implements Comparable<Slot> {

        private static final Comparator<Slot> ORDER =
                Comparator.comparing(Slot::fireTime).thenComparingInt(Slot::item);

        @Override
        public int compareTo(Slot other) {
            return ORDER.compare(this, other);
        }
    }

    /**
     * What to do about the slots of some items that no claim covers.
     *
     * @param run the slots to claim and run, oldest first
     * @param coalesced slots folded into a later run of the same item, each with the slot it is folded into
     * @param skipped slots recorded as not run: missed, and not to be made up
     * @param notDue slots that were never due (the job or the item was disabled at the fire, the item is beyond the
     *     count): recorded as not run, so that their fire settles, and no misfire
     */
    public record MakeUpPlan(List<Slot> run, Map<Slot, Slot> coalesced, List<Slot> skipped, List<Slot> notDue) {

        /** Whether anything was missed: a slot made up, coalesced or skipped. */
        public boolean hasMissed() {
            return !run.isEmpty() || !coalesced.isEmpty() || !skipped.isEmpty();
        }

        /** This plan without the missed slots of the given items: they wait (disabled now, say); their not-due slots stay. */
        public MakeUpPlan withoutMissedOf(Set<Integer> items) {
            if (items.isEmpty()) {
                return this;
            }
            Map<Slot, Slot> keptCoalesced = new LinkedHashMap<>(coalesced);
            keptCoalesced.keySet().removeIf(slot -> items.contains(slot.item()));
            return new MakeUpPlan(
                    run.stream().filter(slot -> !items.contains(slot.item())).toList(),
                    keptCoalesced,
                    skipped.stream()
                            .filter(slot -> !items.contains(slot.item()))
                            .toList(),
                    notDue);
        }
    }

    /**
     * Plans the make-up of the slots of {@code items} that no claim covers.
     *
     * <p>A slot is missing once its fire is late (before {@code lateBefore}): until then its owner may still claim it,
     * and a make-up would only race it. Missing slots before {@code horizon} are beyond catch-up and skipped under
     * every policy, unless their fire {@linkplain FireOrigin#agesOut does not age out}. Under {@link
     * MisfirePolicy#ONCE}, each run of consecutive missing fires of an item (no claimed fire in between) runs once, as
     * its latest fire; the others are coalesced into that run. Each item of an operator's fire, or of one its upstreams
     * recorded while the job had an instance ({@link FireOrigin#runsUnderEveryPolicy}), is owed once: its missing slot
     * runs as its own fire under every policy, is never coalesced, and ends the run of missed fires before it.
     *
     * <p>Only the slots due count ({@link DueRule#judge}; one not known yet is left to a later audit). A slot not due is
     * never made up, coalesced or skipped as missed: it is {@linkplain MakeUpPlan#notDue recorded} so that its fire
     * settles, and it neither joins nor ends a run of missed fires, so that under {@link MisfirePolicy#ONCE} the missed
     * due fires on either side of a disabled window are one run. A claim of a slot not due (a fire's skip of a disabled
     * item) does not end a run either.
     *
     * @param claimed for every fire known to be due, the items a claim covers
     */
    public static MakeUpPlan makeUps(
            SortedMap<Instant, Set<Integer>> claimed,
            Collection<Integer> items,
            MisfirePolicy policy,
            Instant lateBefore,
            Instant horizon,
            Function<Instant, FireOrigin> originOf,
            Function<Slot, DueRule.Due> due) {
        List<Slot> run = new ArrayList<>();
        Map<Slot, Slot> coalesced = new LinkedHashMap<>();
        List<Slot> skipped = new ArrayList<>();
        List<Slot> notDue = new ArrayList<>();
        for (int item : items.stream().sorted().distinct().toList()) {
            List<Slot> group = new ArrayList<>();
            for (Map.Entry<Instant, Set<Integer>> fire : claimed.entrySet()) {
                Instant fireTime = fire.getKey();
                if (!fireTime.isBefore(lateBefore)) {
                    break;
                }
                Slot slot = new Slot(item, fireTime);
                DueRule.Due judged = due.apply(slot);
                if (fire.getValue().contains(item) || judged == DueRule.Due.NOT_KNOWN_YET) {
                    if (judged == DueRule.Due.YES) {
                        closeGroup(group, policy, run, coalesced, skipped);
                    }
                    continue;
                }
                if (judged == DueRule.Due.NO) {
                    notDue.add(slot);
                } else if (fireTime.isBefore(horizon)
                        && originOf.apply(fireTime).agesOut()) {
                    skipped.add(slot);
                } else if (originOf.apply(fireTime).runsUnderEveryPolicy()) {
                    closeGroup(group, policy, run, coalesced, skipped);
                    run.add(slot);
                } else {
                    group.add(slot);
                }
            }
            closeGroup(group, policy, run, coalesced, skipped);
        }
        run.sort(null);
        skipped.sort(null);
        notDue.sort(null);
        return new MakeUpPlan(List.copyOf(run), coalesced, List.copyOf(skipped), List.copyOf(notDue));
    }

    private static void closeGroup(
            List<Slot> group, MisfirePolicy policy, List<Slot> run, Map<Slot, Slot> coalesced, List<Slot> skipped) {
        if (group.isEmpty()) {
            return;
        }
        switch (policy) {
            case ALL -> run.addAll(group);
            case SKIP -> skipped.addAll(group);
            case ONCE -> {
                Slot latest = group.get(group.size() - 1);
                run.add(latest);
                group.subList(0, group.size() - 1).forEach(slot -> coalesced.put(slot, latest));
            }
        }
        group.clear();
    }

    /** The note of a fire node created ahead of its fire by the instance that owns the job's lowest item. */
    public static final String AHEAD = "ahead";

    /** {@link #AHEAD}, as the node's data. */
    static final byte[] AHEAD_NOTE = AHEAD.getBytes(StandardCharsets.UTF_8);

    /**
     * What the ledger holds for one fire.
     *
     * @param note the first line of the fire node's data: who completes or completed the fire, empty before
     * @param noteVersion the fire node's data version, for a compare-and-set of the note
     */
    public record FireView(
            Instant fireTime, Map<Integer, Claim> claims, String note, int noteVersion, FireOrigin origin) {

        public FireView(Instant fireTime, Map<Integer, Claim> claims) {
            this(fireTime, claims, "", 0, FireOrigin.SCHEDULED);
        }

        /** The fire's item count, as its claimers planned it; 0 when nobody claimed anything yet. */
        public int total() {
            return claims.values().stream().mapToInt(Claim::total).max().orElse(0);
        }

        /** Whether every item of the fire has a claim that is no longer open. */
        public boolean isSettled() {
            return isSettled(Integer.MAX_VALUE);
        }

        /**
         * Whether every item of the fire below {@code dueCount} has a claim that is no longer open: the items beyond a
         * count lowered since the fire have no owner to run them, and were not due ({@link DueRule#dueCount}).
         */
        public boolean isSettled(int dueCount) {
            if (origin.isAbandoned()) {
                // Its upstream did not complete as the job follows it: nothing of it was ever due.
                return true;
            }
            return everyDueItem(
                    dueCount, claim -> claim != null && !claim.state().isOpen());
        }

        /**
         * Whether the node was only created ahead of its fire and nobody claimed anything in it: a sign that the fire
         * was due only while the schedule still has it; after a change of schedule, a fire that never came.
         */
        public boolean isAheadOnly() {
            return claims.isEmpty() && note.equals(AHEAD);
        }

        /** Whether every item of the fire below {@code dueCount} has a claim, open or not: nothing is left to make up. */
        public boolean isClaimed(int dueCount) {
            return everyDueItem(dueCount, Objects::nonNull);
        }

        /** Whether somebody claimed an item of the fire, and the claim of every item below {@code dueCount} passes. */
        private boolean everyDueItem(int dueCount, Predicate<Claim> test) {
            int total = total();
            return total > 0
                    && IntStream.range(0, Math.min(total, dueCount))
                            .mapToObj(claims::get)
                            .allMatch(test);
        }

        public boolean hasOpenClaim() {
            return claims.values().stream().anyMatch(claim -> claim.state().isOpen());
        }
    }

    /**
     * The fires to delete: settled ones older than {@code keepAfter} (kept until then for operators and for late
     * make-ups to find them), and unsettled ones older than the catch-up {@code horizon} with no open claim, which
     * nothing will ever make up. A fire with an open claim is never deleted: its item has yet to run; nor an unsettled
     * fire its upstreams recorded, whose items are made up whatever its age ({@link FireOrigin#agesOut}).
     */
    public static List<Instant> toRetire(Collection<FireView> fires, Instant keepAfter, Instant horizon) {
        return fires.stream()
                .filter(fire -> (fire.isSettled() && fire.fireTime().isBefore(keepAfter))
                        || (fire.fireTime().isBefore(horizon) && fire.origin().agesOut() && !fire.hasOpenClaim()))
                .map(FireView::fireTime)
                .sorted()
                .toList();
    }

    /**
     * The latest fire such that it and every fire before it are settled: audits need not look at or before it.
     *
     * @param fires every fire the ledger holds after the previous watermark, in any order
     */
    public static Instant settledThrough(Collection<FireView> fires, Instant previous) {
        return Watermark.advance(new Watermark(previous, Set.of()), fires, fireTime -> Integer.MAX_VALUE, Instant.MIN)
                .settled();
    }
}
