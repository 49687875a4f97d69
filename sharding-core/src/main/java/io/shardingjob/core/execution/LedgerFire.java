package io.shardingjob.core.execution;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One fire as the fire ledger holds it now, for operators: every item's claim, across the cluster (recent history:
 * see {@code LedgerView.recentFires}).
 *
 * @param fireTime the scheduled time of the fire, the ledger's key for it
 * @param settled whether every item of the fire has a settled claim (none is still open)
 * @param items the claims of the fire's items, by item; an item nobody claimed yet is absent
 * @param after for a job that follows others: the upstream jobs whose fire at this same time completed and recorded
 *     this one; empty for a scheduled or manual fire
 * @param awaiting the upstream jobs whose fire at this time has not completed (yet): while any is, none of this
 *     fire's items runs
 * @param abandonedBy the upstream job whose fire at this time completed otherwise than this job's {@code on} asks, or
 *     can no longer complete: the fire never runs; null for none
 */
public record LedgerFire(
        Instant fireTime,
        boolean settled,
        List<LedgerFire.Item> items,
        List<String> after,
        List<String> awaiting,
        @Nullable String abandonedBy) {

    public LedgerFire {
        items = List.copyOf(items);
        after = List.copyOf(after);
        awaiting = List.copyOf(awaiting);
    }

    /**
     * The claim of one item of the fire.
     *
     * @param instanceId the instance holding the claim (for a settled claim: the one that settled it)
     * @param live whether the session that holds the claim is alive: an open claim of a dead session is an orphan
     * @param source why it ran, or runs
     * @param attempt how many owners the claim has had: 1, or more after take-overs
     * @param retry the retry the item is at
     * @param fencingToken the token of the claim's current owner (see {@link ShardingContext#fencingToken()})
     * @param started when its current owner took it
     * @param ended when it ended, if it did
     * @param checkpoint the last checkpoint a run of it saved (see {@link ShardingContext#saveCheckpoint}), from which a
     *     run that continues it resumes; null when none was
     */
    public record Item(
            int item,
            ClaimState state,
            String instanceId,
            boolean live,
            ExecutionSource source,
            int attempt,
            int retry,
            long fencingToken,
            Instant started,
            @Nullable Instant ended,
            @Nullable String checkpoint) {}
}
