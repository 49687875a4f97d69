package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.time.Instant;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The ends this instance recorded in the ledger, by fire: the claims as its writes stored them. A claim that ended is
 * never written again (nobody takes over or releases an ended claim), so while a fire is remembered here its claims are
 * known without reading them. When every item of a fire ended here (one instance runs the job, or the leader ran a
 * whole fire), the leader's keeper sees the fire settled without a read: with a thousand items a fire, most of its
 * upkeep's requests. Bounded by a number of claims: fires beyond it are read, as any other.
 */
public final class RecordedEnds {

    private final NavigableMap<Instant, Map<Integer, Claim>> fires = new TreeMap<>();
    private final int maxClaims;
    private int claims;

    public RecordedEnds(int maxClaims) {
        this.maxClaims = maxClaims;
    }

    /** An end of this instance's run was stored: {@code stored} is the claim as it is now, ended. */
    public synchronized void recorded(Claim stored) {
        if (stored.state().isOpen()) {
            return;
        }
        if (fires.computeIfAbsent(stored.fireTime(), fireTime -> new TreeMap<>())
                        .put(stored.item(), stored)
                == null) {
            claims++;
        }
        while (claims > maxClaims) {
            claims -= fires.pollFirstEntry().getValue().size();
        }
    }

    /** The fire as a read would show its claims, when every one of its items ended here; empty when some did not. */
    public synchronized Optional<FireView> settledHere(Instant fireTime) {
        Map<Integer, Claim> ended = fires.get(fireTime);
        if (ended == null) {
            return Optional.empty();
        }
        FireView view = new FireView(fireTime, Map.copyOf(ended));
        return view.isSettled() ? Optional.of(view) : Optional.empty();
    }

    /** Forgets the fires at or before the ledger's watermark: settled, and never read again. */
    public synchronized void forgetThrough(Instant watermark) {
        Map<Instant, Map<Integer, Claim>> settled = fires.headMap(watermark, true);
        settled.values().forEach(ended -> claims -= ended.size());
        settled.clear();
    }
}
