package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Who picks up an open claim its holder will not finish, as pure functions of the claims read and the sessions alive:
 * the item's owner takes over the orphans (given up, or held by a dead session), this instance runs or releases what
 * its own sessions left, and nobody starts an item another live session still runs. These rules are apart from the
 * make-up rules of {@link LedgerRules} because they judge claims that exist, by who holds them, where those judge
 * fires nobody claimed, by the schedule; ZooKeeper then decides each take-over by a write at the version read.
 */
public final class TakeOverRule {

    private TakeOverRule() {}

    /** Whether its owner gave the claim up, run or not: the item's owner takes it over whatever the owner's session. */
    public static boolean isGivenUp(Claim claim) {
        return claim.state() == ClaimState.RELEASED || claim.state() == ClaimState.HANDED_ON;
    }

    /** An orphan: given up, or held by a session that is not live as read from the server ({@link LiveSessions}). */
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
     * never started (reserved, or handed on) is the fire's own run of the item and always runs; so does one whose start
     * was written ahead ({@link Claim#startAhead}), which may never have begun and is judged as written, under failover
     * on ({@link StartBatch#writesAhead}), whatever the job's setting ({@code failover}) is now.
     */
    public static boolean runsOrphan(Claim orphan, boolean failover) {
        return failover || orphan.state().neverStarted() || orphan.startAhead();
    }

    /**
     * The items this instance owns that another live session is still running, for any fire: this instance does not
     * start them until that run ends, so that one item never runs on two instances at once, even for two fires (an item
     * moved by a reshard while its old owner finishes it, say). Each with the other session's running claim.
     */
    public static Map<Integer, Claim> runsElsewhere(
            Collection<Claim> claims, Set<Long> liveSessions, long sessionId, Set<Integer> ownedItems) {
        return claims.stream()
                .filter(claim -> claim.state().isHeld()
                        && claim.sessionId() != sessionId
                        && liveSessions.contains(claim.sessionId())
                        && ownedItems.contains(claim.item()))
                .collect(Collectors.toUnmodifiableMap(Claim::item, claim -> claim, (earlier, later) -> later));
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
}
