package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The claims this session holds open, by item and fire: won by a fire or an audit and not settled yet, made ahead for
 * fires the scheduler has not told of yet, or asked for ahead in a request not answered yet. They are this session's
 * business: no audit, its own or the leader's keeper, may take them for stranded whatever a read of the ledger says.
 */
final class OpenClaims {

    private final LocalFires fires;

    /** Item-fires this session won a claim for and has not finished recording. */
    private final Set<Slot> inFlight = ConcurrentHashMap.newKeySet();

    /** The item-fires in flight whose run ended, with their end queued or being written. */
    private final Set<Slot> ending = ConcurrentHashMap.newKeySet();

    /**
     * How many item-fires in flight of each fire are not ending, kept with every change of {@code inFlight} and
     * {@code ending} under its own lock: every end asks whether it is the last of its fire, and a fire of a thousand
     * items must not scan the thousand for each.
     */
    private final Map<Instant, Integer> unended = new HashMap<>();

    /** The claims ahead in a request not answered yet. */
    private final Set<Slot> requestedAhead = ConcurrentHashMap.newKeySet();

    /** Claims this session created ahead for fires it has not been told of yet, by fire and item; guarded by this. */
    private final NavigableMap<Instant, Map<Integer, Claim>> ahead = new TreeMap<>();

    /** @param fires the fires this instance was told of: a claim made ahead is kept only for a fire not told yet */
    OpenClaims(LocalFires fires) {
        this.fires = fires;
    }

    /** This session won the claim: its run is this instance's business until its end is recorded. */
    void claimed(Claim claim) {
        enter(slotOf(claim));
    }

    private void enter(Slot slot) {
        synchronized (unended) {
            if (inFlight.add(slot) && !ending.contains(slot)) {
                count(slot, 1);
            }
        }
    }

    /** Guarded by {@code unended}. */
    private int count(Slot slot, int change) {
        Integer now = unended.merge(slot.fireTime(), change, Integer::sum);
        if (now != null && now <= 0) {
            unended.remove(slot.fireTime());
            return 0;
        }
        return now == null ? 0 : now;
    }

    /** The claim's end is recorded (or owed, see {@link RunMemory#unwritten}), or the run never started. */
    void settled(Claim claim) {
        Slot slot = slotOf(claim);
        synchronized (unended) {
            boolean was = inFlight.remove(slot);
            if (!ending.remove(slot) && was) {
                count(slot, -1);
            }
        }
    }

    /**
     * The claim's run ended and its end is about to be written.
     *
     * @return whether no other item of its fire still runs here: its end need not wait for theirs
     */
    boolean endingLastOfItsFire(Claim claim) {
        Slot slot = slotOf(claim);
        synchronized (unended) {
            boolean nowEnding = ending.add(slot);
            return count(slot, nowEnding && inFlight.contains(slot) ? -1 : 0) == 0;
        }
    }

    /**
     * The item-fires this session holds a claim for and is running or about to run, and those it is claiming ahead in a
     * request not answered yet: the audit must not take the claims such a request created for stranded.
     */
    Set<Slot> inFlight() {
        return Stream.concat(inFlight.stream(), requestedAhead.stream()).collect(Collectors.toSet());
    }

    /** Whether this session holds a claim of the fire that is in flight (see {@link #inFlight()}). */
    boolean holdsOpenClaimOf(Instant fireTime) {
        return Stream.concat(inFlight.stream(), requestedAhead.stream())
                .anyMatch(slot -> slot.fireTime().equals(fireTime));
    }

    /** Claims ahead are being requested: in flight until {@link #answeredAhead} says what came of the request. */
    void requestingAhead(Collection<Claim> claims) {
        claims.forEach(claim -> requestedAhead.add(slotOf(claim)));
    }

    /** The request for these claims ahead was answered (the ones won are kept by {@link #claimedAhead}) or failed. */
    void answeredAhead(Collection<Claim> claims) {
        claims.forEach(claim -> requestedAhead.remove(slotOf(claim)));
    }

    /**
     * The scheduler told this instance of a fire, whatever it could do about it.
     *
     * @return the claims this session created ahead for the fire, by item: the fire's to run or hand on now
     */
    synchronized Map<Integer, Claim> sawFire(Instant fireTime) {
        fires.saw(fireTime);
        Map<Integer, Claim> claims = ahead.remove(fireTime);
        return claims == null ? Map.of() : claims;
    }

    /**
     * Keeps claims created ahead for a fire until its trigger takes them, and counts them in flight meanwhile: they are
     * this session's business, not stranded.
     *
     * @return false, keeping nothing, when the fire came meanwhile: its trigger found them in the ledger as this
     *     session's, or left them to the audit
     */
    synchronized boolean claimedAhead(Instant fireTime, Collection<Claim> claims) {
        if (fires.hasSeen(fireTime) || claims.isEmpty()) {
            return false;
        }
        Map<Integer, Claim> ofFire = ahead.computeIfAbsent(fireTime, fire -> new TreeMap<>());
        claims.forEach(claim -> {
            ofFire.put(claim.item(), claim);
            enter(slotOf(claim));
        });
        return true;
    }

    synchronized Set<Integer> aheadItems(Instant fireTime) {
        Map<Integer, Claim> claims = ahead.get(fireTime);
        return claims == null ? Set.of() : Set.copyOf(claims.keySet());
    }

    /**
     * Takes the claims made ahead that match: their caller hands them on (releases them, or leaves them to the audit
     * by calling {@link #settled}).
     */
    synchronized List<Claim> takeAhead(Predicate<Claim> which) {
        List<Claim> taken = new ArrayList<>();
        ahead.values().removeIf(ofFire -> {
            ofFire.values().removeIf(claim -> which.test(claim) && taken.add(claim));
            return ofFire.isEmpty();
        });
        return taken;
    }

    private static Slot slotOf(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }
}
