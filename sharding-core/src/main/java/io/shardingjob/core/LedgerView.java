package io.shardingjob.core;

import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.scheduling.LedgerQueries;
import java.util.List;
import java.util.Map;

/**
 * What one job's fire ledger holds now, across the cluster, for operators: the items running and on which instance,
 * the take-overs, the orphans nobody took over yet, and the recent fires with every item's claim. Each call reads the
 * unsettled fires from ZooKeeper (a few requests) and judges liveness by the job's cache, which is good enough for
 * display and never decides anything: fires, take-overs and make-ups never read these. Obtained from
 * {@link JobCoordinator#ledger()}.
 */
public final class LedgerView {

    private final LedgerQueries queries;

    LedgerView(LedgerQueries queries) {
        this.queries = queries;
    }

    /**
     * The open claims of the fires not settled yet. Not public (the claim is internal): operators read
     * {@link #runningOwners()}, {@link #failoverOwners()} and {@link #failoverQueue()}.
     */
    List<Claim> openClaims() {
        return queries.openClaims();
    }

    /** Items running now for a fire whose owner took them over from another instance, with the instance running each. */
    public Map<Integer, String> failoverOwners() {
        return queries.failoverOwners();
    }

    /** Items with an orphaned claim (its owner gone or gone away) that no instance has taken over yet. */
    public List<Integer> failoverQueue() {
        return queries.failoverQueue();
    }

    /** Items whose claim for some unsettled fire is held by a live instance's session. */
    public List<Integer> runningItems() {
        return queries.runningItems();
    }

    /**
     * Item to the last checkpoint saved in its open claim (see {@code ShardingContext.saveCheckpoint}): where its
     * running run stands, or where a run that continues a cut one will resume. Items without one are absent.
     */
    public Map<Integer, String> checkpoints() {
        return queries.checkpoints();
    }

    /** Item to the instance whose live claim says it runs the item. */
    public Map<Integer, String> runningOwners() {
        return queries.runningOwners();
    }

    /**
     * The latest fires the ledger holds, newest first, with every item's claim: who runs or ran it, how it ended, why
     * it ran, its fencing token. Settled fires stay in the ledger for the ledger retention only, so this is recent
     * history; the execution log keeps the rest. Empty when the ledger cannot be read.
     *
     * @param limit how many fires at most
     * @throws IllegalArgumentException when {@code limit} is below 1
     */
    public List<LedgerFire> recentFires(int limit) {
        return queries.recentFires(limit);
    }
}
