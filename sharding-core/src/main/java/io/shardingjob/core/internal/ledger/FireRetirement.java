package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * The keeper's deletion of old fires, a few at a time: a job firing once per pass would otherwise cost a read and a
 * delete every pass. A fire past the retention goes once settled (at or before the watermark), or once given up past
 * the catch-up horizon with no open claim and not a follower's ({@link LedgerRules#toRetire}). A fire the watermark
 * lists still open is never retired: its open claim has yet to end, and audits read it.
 */
final class FireRetirement {

    /** Old fires retired together: retention waits until this many are due, or one is twice the retention old. */
    static final int RETIRE_BATCH = 4;

    /** A ledger version that says the node changed under the pass: a re-run may have reopened a fire, none is deleted. */
    static final int CHANGED = -2;

    private final LedgerReads reads;
    private final KeeperWrites writes;
    private final LedgerKeeper.Horizons horizons;

    FireRetirement(LedgerReads reads, KeeperWrites writes, LedgerKeeper.Horizons horizons) {
        this.reads = reads;
        this.writes = writes;
        this.horizons = horizons;
    }

    /** How many fires a pass deleted, and whether it left old fires for the next. */
    record Retired(int fires, boolean more) {}

    /**
     * Deletes the old fires among {@code fires}, at most {@value LedgerKeeper#FIRES_PER_PASS}, each request checking
     * that the ledger node is still at {@code ledgerVersion} (none at {@link #CHANGED}).
     */
    CompletableFuture<Retired> retire(List<Instant> fires, Watermark mark, int ledgerVersion, Instant now) {
        if (ledgerVersion == CHANGED) {
            return CompletableFuture.completedFuture(new Retired(0, false));
        }
        Instant settled = mark.settled();
        Instant keepAfter = now.minus(horizons.retention());
        Instant horizon = now.minus(horizons.catchUp());
        List<Instant> old = fires.stream()
                .filter(fireTime -> fireTime.isBefore(keepAfter)
                        && !mark.stillOpen().contains(fireTime)
                        && (!fireTime.isAfter(settled) || fireTime.isBefore(horizon)))
                .limit(LedgerKeeper.FIRES_PER_PASS + 1L)
                .toList();
        boolean more = old.size() > LedgerKeeper.FIRES_PER_PASS;
        if (more) {
            old = old.subList(0, LedgerKeeper.FIRES_PER_PASS);
        }
        boolean worthAPass = old.size() >= RETIRE_BATCH
                || (!old.isEmpty() && old.get(0).isBefore(keepAfter.minus(horizons.retention())));
        if (!worthAPass) {
            return CompletableFuture.completedFuture(new Retired(0, more));
        }
        // A fire at or before the watermark is settled: no claim is created in it any more (every item has one) nor
        // written (none is open), so the names of its claims are all its deletion needs. Only fires given up past the
        // catch-up horizon are read, to keep the ones with an open claim and followers' fires (LedgerRules#toRetire).
        CompletableFuture<Map<Instant, List<Integer>>> listed = reads.itemsAsync(
                old.stream().filter(fireTime -> !fireTime.isAfter(settled)).toList());
        CompletableFuture<Map<Instant, List<Integer>>> unclaimed = reads.readAsync(old.stream()
                        .filter(fireTime -> fireTime.isAfter(settled))
                        .toList())
                .thenApply(views -> {
                    List<Instant> retire = LedgerRules.toRetire(views, keepAfter, horizon);
                    return views.stream()
                            .filter(view -> retire.contains(view.fireTime()))
                            .collect(Collectors.toMap(
                                    FireView::fireTime,
                                    view -> List.copyOf(view.claims().keySet())));
                });
        return listed.thenCombine(unclaimed, (settledFires, givenUp) -> {
                    Map<Instant, List<Integer>> retire = new TreeMap<>(settledFires);
                    retire.putAll(givenUp);
                    return retire;
                })
                .thenCompose(retire -> writes.retireAsync(retire, ledgerVersion))
                .thenApply(retired -> new Retired(retired, more));
    }
}
