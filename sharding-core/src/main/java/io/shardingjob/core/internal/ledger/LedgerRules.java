package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * The ledger's decisions, as pure functions of what was read from it: which claims to take over, which missed fires
 * to make up, coalesce or skip, and which fires to retire. ZooKeeper then decides the races these plans run into (a
 * {@code create} that finds the node, a {@code setData} at a stale version), so a plan made on a stale read is safe:
 * it can only lose.
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

        public MakeUpPlan(List<Slot> run, Map<Slot, Slot> coalesced, List<Slot> skipped) {
            this(run, coalesced, skipped, List.of());
        }

        public boolean isEmpty() {
            return run.isEmpty() && coalesced.isEmpty() && skipped.isEmpty() && notDue.isEmpty();
        }

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

    /** Whether its owner gave the claim up, run or not: the item's owner takes it over whatever the owner's session. */
    public static boolean isGivenUp(Claim claim) {
        return claim.state() == ClaimState.RELEASED || claim.state() == ClaimState.HANDED_ON;
    }

    /**
     * An orphan: an open claim whose owner gave it up, or whose owner session is not live. The live sessions must come
     * from the server, not a cache: a cache that has not seen a new instance's registration yet would make its claims
     * look orphaned while it runs them.
     */
    public static boolean isOrphan(Claim claim, Set<Long> liveSessions) {
        return isGivenUp(claim) || (claim.state().isHeld() && !liveSessions.contains(claim.sessionId()));
    }

    /**
     * The orphans this instance takes over: those of items it owns now. Only the item's owner takes it over, so that
     * the runs of one item, orphaned or not, stay on one instance, one after another. A running claim of a dead session
     * whose instance is registered again (under a new session) is left to that instance: it knows whether the run
     * ended (its end may be owed after a connection loss) and releases it if not, see {@link #previousSessionOwn}.
     *
     * <p>Whether an owner that is not registered is dead is judged only by an observer that can tell: one that lost its
     * own session lately (every session expires together when the ZooKeeper server was frozen) cannot tell a dead owner
     * from one still reconnecting, which may have finished the run and owes its end. Until a session timeout has passed
     * since it came back, it takes over only released claims.
     *
     * @param liveInstances the instances registered now, each with its session
     * @param absentOwnersAreDead whether an owner that is not registered counts as dead
     */
    public static List<Claim> toTakeOver(
            Collection<Claim> claims,
            Map<String, Long> liveInstances,
            Set<Integer> ownedItems,
            boolean absentOwnersAreDead) {
        Set<Long> liveSessions = Set.copyOf(liveInstances.values());
        return claims.stream()
                .filter(claim -> ownedItems.contains(claim.item()))
                .filter(claim -> isOrphan(claim, liveSessions))
                .filter(claim ->
                        isGivenUp(claim) || (absentOwnersAreDead && !liveInstances.containsKey(claim.instanceId())))
                .sorted(Comparator.comparing(Claim::fireTime).thenComparingInt(Claim::item))
                .toList();
    }

    /**
     * Whether an orphan this instance took over runs here, or is recorded {@code FAILED}: {@code failover: false} means
     * that a run that started and was cut is not repeated, never that an item of a fire is skipped. An orphan whose run
     * never started (reserved, or handed on) is the fire's own run of the item and always runs.
     */
    public static boolean runsOrphan(Claim orphan, boolean failover) {
        return failover || orphan.state().neverStarted();
    }

    /**
     * The items this instance owns that another live session is still running, for any fire: this instance does not
     * start them until that run ends, so that one item never runs on two instances at once, even for two fires (an item
     * moved by a reshard while its old owner finishes it, say).
     */
    public static Set<Integer> runningElsewhere(
            Collection<Claim> claims, Set<Long> liveSessions, long sessionId, Set<Integer> ownedItems) {
        return runsElsewhere(claims, liveSessions, sessionId, ownedItems).keySet();
    }

    /** {@link #runningElsewhere}, with the other session's running claim of each item. */
    public static Map<Integer, Claim> runsElsewhere(
            Collection<Claim> claims, Set<Long> liveSessions, long sessionId, Set<Integer> ownedItems) {
        Map<Integer, Claim> elsewhere = new java.util.TreeMap<>();
        claims.stream()
                .filter(claim -> claim.state().isHeld()
                        && claim.sessionId() != sessionId
                        && liveSessions.contains(claim.sessionId())
                        && ownedItems.contains(claim.item()))
                .forEach(claim -> elsewhere.put(claim.item(), claim));
        return Map.copyOf(elsewhere);
    }

    /**
     * Running claims of this instance's earlier sessions that this process neither runs nor owes an end for: it lost
     * them with its session (or it is a new process under the same id). It releases them, so that the item's owner
     * takes them over at once.
     *
     * @param known the item-fires this process runs or owes an end for
     */
    public static List<Claim> previousSessionOwn(
            Collection<Claim> claims, String instanceId, long sessionId, Set<Slot> known) {
        return claims.stream()
                .filter(claim -> claim.state().isHeld()
                        && claim.instanceId().equals(instanceId)
                        && claim.sessionId() != sessionId)
                .filter(claim -> !known.contains(new Slot(claim.item(), claim.fireTime())))
                .sorted(Comparator.comparing(Claim::fireTime).thenComparingInt(Claim::item))
                .toList();
    }

    /**
     * Claims of this very session that it is not running: their write reached the server although the client saw the
     * connection drop, or the instance lost track of them. Nobody else takes them over while the session lives, so the
     * session itself must run or release them.
     */
    public static List<Claim> strandedOwn(Collection<Claim> claims, long sessionId, Set<Slot> runningHere) {
        return claims.stream()
                .filter(claim -> claim.state().isHeld() && claim.sessionId() == sessionId)
                .filter(claim -> !runningHere.contains(new Slot(claim.item(), claim.fireTime())))
                .sorted(Comparator.comparing(Claim::fireTime).thenComparingInt(Claim::item))
                .toList();
    }

    /**
     * The items whose claims for the schedule's next fire this instance creates ahead, in the request that records the
     * ends of a fire, so that at the next fire instant no claim stands between the trigger and its items (each run still
     * starts with the write of its start): the items it owns that it could start now. None when the next fire was already told of: its trigger claims for itself.
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
         * Starts it: nothing changed since it was made. The run still begins with its start write (see {@link
         * RunStart}), which fails if the claim was taken over meanwhile and proves the session live.
         */
        RUN,
        /** Records it as not run: its item-fire is not due (see {@link DueRule}). */
        SKIP,
        /**
         * Gives it up for the item's owner to take over: the item is no longer this instance's, or it is disabled now
         * though its fire was due (its owner runs it once enabled).
         */
        RELEASE,
        /**
         * Leaves it to this instance's audit, as any claim of its own it is not running: the item is busy here or run by
         * another session (the audit runs it once that run ended), this instance is cut off from ZooKeeper, or the claim
         * names an earlier session (the audit releases it).
         */
        AUDIT
    }

    /**
     * What a fire does with a claim made ahead for it, from what holds at the fire instant.
     *
     * @param connected whether this instance can start items (connected and registered)
     * @param jobDisabled whether the job is disabled
     * @param owned the items this instance owns now, none when it is disabled
     * @param disabledItems the items disabled now
     * @param startable whether the item is neither busy here nor run by another live session
     * @param due whether the claim's item-fire is due by the schedule history ({@link DueRule#isDue(Slot)})
     */
    public static AheadFate atFire(
            Claim ahead,
            long sessionId,
            boolean connected,
            boolean jobDisabled,
            Set<Integer> owned,
            Set<Integer> disabledItems,
            boolean startable,
            boolean due) {
        if (!connected || ahead.sessionId() != sessionId) {
            return AheadFate.AUDIT;
        }
        if (!due) {
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

    /**
     * Plans the make-up of the slots of {@code items} that no claim covers.
     *
     * <p>A slot is missing once its fire is late (before {@code lateBefore}): until then its owner may still claim it,
     * and a make-up would only race it. Missing slots before {@code horizon} are beyond catch-up and skipped under every
     * policy. Under {@link MisfirePolicy#ONCE}, each run of consecutive missing fires of an item (no claimed fire in
     * between) runs once, as its latest fire; the others are coalesced into that run. An operator asked for every item
     * of a manual fire to run once: its missing slot runs as its own fire under every policy, is never coalesced, and
     * ends the run of missed fires before it.
     *
     * @param claimed for every fire known to be due, the items a claim covers
     * @param manual the fires an operator asked for ({@link FireOrigin#manual()})
     */
    public static MakeUpPlan makeUps(
            SortedMap<Instant, Set<Integer>> claimed,
            Collection<Integer> items,
            MisfirePolicy policy,
            Instant lateBefore,
            Instant horizon,
            Set<Instant> manual) {
        return makeUps(claimed, items, policy, lateBefore, horizon, manual, slot -> true);
    }

    /**
     * {@link #makeUps(SortedMap, Collection, MisfirePolicy, Instant, Instant, Set)}, for only the slots that were due
     * ({@link DueRule#isDue(Slot)}). A slot that was not due is never made up, coalesced or skipped as missed: it is
     * {@linkplain MakeUpPlan#notDue recorded} so that its fire settles, and it neither joins nor ends a run of missed
     * fires, so that under {@link MisfirePolicy#ONCE} the missed due fires on either side of a disabled window are one
     * run. A claim of a slot that was not due (a fire's skip of a disabled item) does not end a run either.
     *
     * @param due whether a slot was due
     */
    public static MakeUpPlan makeUps(
            SortedMap<Instant, Set<Integer>> claimed,
            Collection<Integer> items,
            MisfirePolicy policy,
            Instant lateBefore,
            Instant horizon,
            Set<Instant> manual,
            java.util.function.Predicate<Slot> due) {
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
                boolean wasDue = due.test(slot);
                if (fire.getValue().contains(item)) {
                    if (wasDue) {
                        closeGroup(group, policy, run, coalesced, skipped);
                    }
                    continue;
                }
                if (!wasDue) {
                    notDue.add(slot);
                } else if (fireTime.isBefore(horizon)) {
                    skipped.add(slot);
                } else if (manual.contains(fireTime)) {
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
    static final byte[] AHEAD_NOTE = AHEAD.getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /**
     * What the ledger holds for one fire.
     *
     * @param note the first line of the fire node's data: who completes or completed the fire, empty before
     * @param noteVersion the fire node's data version, for a compare-and-set of the note
     * @param origin how the fire was asked for, and the job parameter its items run with
     */
    public record FireView(
            Instant fireTime, Map<Integer, Claim> claims, String note, int noteVersion, FireOrigin origin) {

        public FireView(Instant fireTime, Map<Integer, Claim> claims, String note, int noteVersion) {
            this(fireTime, claims, note, noteVersion, FireOrigin.SCHEDULED);
        }

        public FireView(Instant fireTime, Map<Integer, Claim> claims) {
            this(fireTime, claims, "", 0);
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
            int total = total();
            if (total == 0) {
                return false;
            }
            for (int item = 0; item < Math.min(total, dueCount); item++) {
                Claim claim = claims.get(item);
                if (claim == null || claim.state().isOpen()) {
                    return false;
                }
            }
            return true;
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
            int total = total();
            if (total == 0) {
                return false;
            }
            for (int item = 0; item < Math.min(total, dueCount); item++) {
                if (!claims.containsKey(item)) {
                    return false;
                }
            }
            return true;
        }

        public boolean hasOpenClaim() {
            return claims.values().stream().anyMatch(claim -> claim.state().isOpen());
        }
    }

    /**
     * The fires to delete: settled ones older than {@code keepAfter} (kept until then for operators and for late
     * make-ups to find them), and unsettled ones older than the catch-up {@code horizon} with no open claim, which
     * nothing will ever make up. A fire with an open claim is never deleted: its item has yet to run.
     */
    public static List<Instant> toRetire(Collection<FireView> fires, Instant keepAfter, Instant horizon) {
        return fires.stream()
                .filter(fire -> (fire.isSettled() && fire.fireTime().isBefore(keepAfter))
                        || (fire.fireTime().isBefore(horizon) && !fire.hasOpenClaim()))
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
        return settledThrough(fires, previous, fireTime -> Integer.MAX_VALUE);
    }

    /**
     * {@link #settledThrough(Collection, Instant)}, with each fire's items below its {@code dueCount} only: see {@link
     * FireView#isSettled(int)}.
     */
    public static Instant settledThrough(
            Collection<FireView> fires, Instant previous, java.util.function.ToIntFunction<Instant> dueCount) {
        return Watermark.advance(new Watermark(previous, Set.of()), fires, dueCount, Instant.MIN)
                .settled();
    }
}
