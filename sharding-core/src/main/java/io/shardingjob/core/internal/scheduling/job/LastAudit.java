package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.internal.ledger.Claim;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * What the last audit of this instance saw: the assignment it looked at, the items this instance owned under it, and
 * the owned items another live session still ran. A fire starts an item only when an audit has looked at its
 * assignment (see {@link #mayStart}), and waits here for one that has not.
 */
final class LastAudit {

    /** Owned items another live session still runs, with its claim, as the last audit saw them. */
    private volatile Map<Integer, Claim> runningElsewhere = Map.of();

    /** The epoch of the assignment the last audit looked at, and the items this instance owned under it. */
    private long auditedEpoch = -1;

    private Set<Integer> auditedItems = Set.of();

    /** The fires waiting for the audit of an assignment; guarded by this. */
    private final List<AuditWaiter> auditWaiters = new ArrayList<>();

    /** What an audit found for the assignment of {@code epoch}; fires waiting for it go on. */
    void audited(long epoch, Set<Integer> owned, Map<Integer, Claim> elsewhere) {
        List<CompletableFuture<Void>> woken = new ArrayList<>();
        synchronized (this) {
            auditedEpoch = epoch;
            auditedItems = Set.copyOf(owned);
            runningElsewhere = Map.copyOf(elsewhere);
            auditWaiters.removeIf(waiter -> {
                if (waiter.epoch() <= epoch) {
                    woken.add(waiter.audited());
                    return true;
                }
                // Timed out: the fire went on without this audit.
                return waiter.audited().isDone();
            });
        }
        woken.forEach(audited -> audited.complete(null));
    }

    /**
     * Whether a run under the assignment of {@code epoch} may start the item here (a fire plans it, or a queued run
     * leaves the queue): no other live session runs it, as far as the audits know. An audit of this very assignment
     * looked; or the last audit looked at the assignment just before it, when the item was already this instance's:
     * with exactly one assignment written since, no other owner can have come and gone in between. Any other gap (an
     * item that just moved here, or a cache that skipped an assignment) waits for an audit: the item may still run on an
     * owner this instance never saw. A run the audit saw elsewhere is checked again in the ledger ({@code stillRuns}):
     * the audit only polls, and the run may have ended since.
     */
    boolean mayStart(int item, long epoch, Predicate<Claim> stillRuns) {
        Claim other = runningElsewhere.get(item);
        if (other != null && !stillRuns.test(other)) {
            forgetElsewhere(item, other);
            other = null;
        }
        synchronized (this) {
            return other == null
                    && (epoch == auditedEpoch || (epoch == auditedEpoch + 1 && auditedItems.contains(item)));
        }
    }

    Set<Integer> elsewhereItems() {
        return runningElsewhere.keySet();
    }

    private synchronized void forgetElsewhere(int item, Claim ended) {
        if (ended.equals(runningElsewhere.get(item))) {
            Map<Integer, Claim> rest = new HashMap<>(runningElsewhere);
            rest.remove(item);
            runningElsewhere = Map.copyOf(rest);
        }
    }

    /**
     * Completes once an audit has looked at the assignment of {@code epoch} (or a later one), at most the timeout
     * later: a fire's wait that holds no thread.
     */
    synchronized CompletableFuture<Void> whenAudited(long epoch, Duration timeout) {
        if (auditedEpoch >= epoch) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> audited =
                new CompletableFuture<Void>().completeOnTimeout(null, timeout.toMillis(), TimeUnit.MILLISECONDS);
        auditWaiters.removeIf(waiter -> waiter.audited().isDone());
        auditWaiters.add(new AuditWaiter(epoch, audited));
        return audited;
    }

    synchronized long auditedEpoch() {
        return auditedEpoch;
    }

    private record AuditWaiter(long epoch, CompletableFuture<Void> audited) {}
}
