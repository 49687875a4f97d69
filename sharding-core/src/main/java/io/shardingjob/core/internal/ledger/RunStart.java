package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Whether a run may start, decided once, as it leaves a queue, by every path that starts a run (a fire, a make-up, a
 * take-over, one of this session's own claims, a retry), with what holds then: an item can wait in a busy pool for
 * longer than a session lives.
 *
 * <p>A run let start begins once its start is written ({@link Claim#startedAt}): a versioned write that fails once the
 * claim was taken over, answered only through the ensemble's leader, so that it proves the session. A refused run never
 * starts: its claim is handed on to the item's owner (the fire's own run whoever runs it), or recorded {@code SKIPPED}
 * when its item-fire was not due ({@link DueRule}), as {@link #decide} says case by case.
 */
public final class RunStart {

    private RunStart() {}

    /** What becomes of a queued run. */
    public enum Verdict {
        /** Write the claim started, then run it. */
        START,
        /** Run it now: its start is written already, and a recent write proved the session ({@link #decideWritten}). */
        BEGIN,
        /** Give the claim up unstarted: the item's owner runs it as the fire's own run. */
        GIVE_UP,
        /** Record it as not run: its item-fire was not due. */
        SKIP
    }

    /**
     * What holds for this instance at the moment a run would start.
     *
     * @param available whether it can start items: started, registered, connected, not stopping
     * @param runnable the items it owns now and may run: none while it is disabled for the job
     * @param contested owned items another session may still run as far as its audits know: one an audit saw running
     *     there, or one no audit cleared since it came here (only the item asked about need be listed)
     * @param due whether an item-fire was due by the schedule history ({@link DueRule#judge}): not known yet while the
     *     history does not record the job's state as this instance sees it
     */
    public record Here(
            long sessionId,
            boolean available,
            boolean jobDisabled,
            Set<Integer> runnable,
            Set<Integer> contested,
            Set<Integer> disabledItems,
            Function<LedgerRules.Slot, DueRule.Due> due) {}

    /**
     * The verdict for a queued run of {@code claim}.
     *
     * @param abandoned whether its reservation was abandoned meanwhile (the instance stops, or lost its connection)
     */
    public static Verdict decide(Claim claim, boolean abandoned, Here here) {
        if (abandoned || !here.available() || claim.sessionId() != here.sessionId()) {
            return Verdict.GIVE_UP;
        }
        switch (here.due().apply(new LedgerRules.Slot(claim.item(), claim.fireTime()))) {
            case NO -> {
                // Disabled at its fire, or beyond a count lowered since: no owner is to run it, now or later.
                return Verdict.SKIP;
            }
            case NOT_KNOWN_YET -> {
                // Not due by a history that lags the configuration seen: its owner decides again once it caught up.
                return Verdict.GIVE_UP;
            }
            case YES -> {
                // Due: what holds now decides.
            }
        }
        if (here.jobDisabled() || here.disabledItems().contains(claim.item())) {
            // Due, and disabled since it was queued: not now, but by its owner once enabled, as a fire missed then.
            return Verdict.GIVE_UP;
        }
        if (!here.runnable().contains(claim.item())) {
            // The item moved while the run waited: its owner now runs it, never two instances at once.
            return Verdict.GIVE_UP;
        }
        if (here.contested().contains(claim.item())) {
            // It came back here through an owner this instance's audits never saw, or runs there still: this
            // instance's audit takes the claim over once that run ended.
            return Verdict.GIVE_UP;
        }
        return Verdict.START;
    }

    /**
     * The verdict for a run whose start was written before it left the queue: within its fire ({@link StartBatch}), or
     * with its claim made ahead of the fire (both with failover on only). It checks what any queued run checks, and
     * begins with no other write only when the session was proven through the ensemble's leader no longer ago than a
     * ninth of the session timeout ({@link #fresh}): only the session's expiry lets another instance take the claim
     * over, and the proof is renewed long before its deadline (a third of the timeout), at which running items are
     * interrupted. Otherwise it writes its start again ({@code START}), whose answer is a proof; so too once an
     * operator switched failover off, since a claim whose start was written ahead is run again when orphaned ({@link
     * TakeOverRule#runsOrphan}).
     *
     * @param sinceProven how long ago the request that last proved the session was sent; null when none did
     */
    public static Verdict decideWritten(
            Claim written,
            boolean abandoned,
            Here here,
            boolean failover,
            @Nullable Duration sinceProven,
            Duration sessionTimeout) {
        Verdict verdict = decide(written, abandoned, here);
        if (verdict != Verdict.START) {
            return verdict;
        }
        return fresh(sinceProven, sessionTimeout) && StartBatch.writesAhead(failover) ? Verdict.BEGIN : Verdict.START;
    }

    /**
     * Whether the session's last proof was sent no longer ago than a ninth of the session timeout, so that a run may
     * begin on it with no write ({@link #decideWritten}): one begun on an older proof, after the instance was idle,
     * would be interrupted a moment later at the proof's deadline ({@link #proven}), before the checks that start once
     * runs are here ({@code ProofChecks}) could renew it.
     */
    public static boolean fresh(@Nullable Duration sinceProven, Duration sessionTimeout) {
        return sinceProven != null && sinceProven.multipliedBy(9).compareTo(sessionTimeout) <= 0;
    }

    /**
     * Whether the session's last proof through the ensemble's leader still vouches for a run: sent no longer ago than a
     * third of the session timeout. The leader cannot expire the session before a whole timeout after it, so a run that
     * stops once the proof is older ({@code ProofChecks}) ends well before another instance can take its claim over.
     * Asked again right before the job's code, since a pause may fall in between.
     */
    public static boolean proven(@Nullable Duration sinceProven, Duration sessionTimeout) {
        return sinceProven != null && sinceProven.multipliedBy(3).compareTo(sessionTimeout) <= 0;
    }

    /**
     * How a run whose start was written but which did not begin is given up: handed on (nothing of it ran, so its next
     * owner runs it, failover on or off), or skipped when its item-fire was not due. Never {@code RELEASED}: that says
     * a run was cut, which {@code failover: false} does not repeat.
     */
    public static ClaimState unbegunAs(Verdict verdict) {
        return verdict == Verdict.SKIP ? ClaimState.SKIPPED : ClaimState.HANDED_ON;
    }

    /**
     * How a refused run gives its claim up: skipped when not due; handed on when nothing of it ran ({@link
     * #unbegunAs}); released when a run of it started before (a retry).
     *
     * @param startWritten whether a start of it was written that no run followed: before it left the queue, or while
     *     its run was abandoned as the write was on its way
     */
    public static ClaimState refusedAs(Claim claim, boolean startWritten, Verdict verdict) {
        if (startWritten) {
            return unbegunAs(verdict);
        }
        return verdict == Verdict.SKIP ? ClaimState.SKIPPED : givenUpAs(claim);
    }

    /**
     * The verdict for a retry of a run that started: it continues that run with its original context (as XXL-JOB keeps
     * a retry's sharding parameter), so only what makes it nobody's run matters. An item that moved meanwhile is not
     * started by its new owner while this run holds its claim.
     */
    public static Verdict decideRetry(Claim claim, boolean abandoned, Here here) {
        return abandoned || !here.available() || claim.sessionId() != here.sessionId()
                ? Verdict.GIVE_UP
                : Verdict.START;
    }

    /** How a refused claim is written: handed on when nothing of it ran, released when a run of it started (a retry). */
    public static ClaimState givenUpAs(Claim claim) {
        return claim.state().neverStarted() ? ClaimState.HANDED_ON : ClaimState.RELEASED;
    }

    /**
     * How a process releases a claim an earlier session of its own left: as {@link #givenUpAs}, but handed on when this
     * process sent its start without an answer and never began the run. Released, a run that began and was cut is
     * recorded failed under {@code failover: false}; handed on, a run that never began is the fire's own run of the
     * item.
     */
    public static ClaimState releasedAs(Claim claim, boolean neverBegunHere) {
        return neverBegunHere ? ClaimState.HANDED_ON : givenUpAs(claim);
    }
}
