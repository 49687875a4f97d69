package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Whether a run may start, decided once, at the moment it leaves a queue: every path that starts a run (a fire, a
 * make-up, a take-over, one of this session's own claims, a retry) asks this rule with what holds at that moment, not
 * with what held when the run was queued. An item can wait in a busy pool for longer than a session lives.
 *
 * <p>A run the rule lets start begins once its start is written ({@link Claim#startedAt}): a versioned write that
 * fails once the claim was taken over and that only the ensemble's leader answers, so the run starts only on a session
 * the leader's side vouched for a moment ago. A start written before the run left its queue counts only while such a
 * write proved the session lately ({@link #decideWritten}). A run the rule refuses never starts: its claim is given up for the item's
 * owner ({@code HANDED_ON}, the fire's own run whoever runs it), or recorded {@code SKIPPED} when its item-fire was not
 * due ({@link DueRule}: an operator took it out of the schedule before its fire); handed on, too, when whether it was
 * due is not known yet (the history lags a change the instance sees), so that it is decided again once it is. An
 * operator's change after the fire does not undo it: a run of a due fire that waited while its job or item was disabled
 * is handed on, and its owner runs it once enabled again, as any fire its item missed while enabled.
 */
public final class RunStart {

    private RunStart() {}

    /** What becomes of a queued run. */
    public enum Verdict {
        /** Write the claim started, then run it. */
        START,
        /**
         * Run it now: its start is written already, and a write answered lately proved the session, so nothing can have
         * taken the claim over since (see {@link #decideWritten}).
         */
        BEGIN,
        /** Give the claim up unstarted: the item's owner runs it as the fire's own run. */
        GIVE_UP,
        /** Record it as not run: its item-fire was not due. */
        SKIP
    }

    /**
     * What holds for this instance at the moment a run would start.
     *
     * @param sessionId the session this instance runs under now
     * @param available whether it can start items: started, registered, connected, not stopping
     * @param jobDisabled whether the job is disabled
     * @param runnable the items this instance owns now and may run: none while it is disabled for the job
     * @param contested owned items another session may still run as far as this instance's audits know: one an audit
     *     saw running there, or one no audit cleared since it came here (only the item asked about need be listed)
     * @param disabledItems the items disabled now
     * @param due whether an item-fire was due, by the job's schedule history ({@link DueRule#judge}), the fire's origin
     *     given: not known yet while the history does not record the job's state as this instance sees it
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
     * The verdict for a run whose start was written before it left the queue: ahead of it within its fire ({@link
     * StartBatch}), or with its claim, made ahead of its fire (both with {@code failover: true} only, see {@link
     * StartBatch#writesAhead}). It checks what any queued run checks, since it may have waited while the assignment, the
     * instance or an operator changed things. It begins without another write only when the session was proven through
     * the ensemble's leader (a write or a {@code sync} answered) no longer ago than a ninth of the session timeout
     * ({@link #fresh}): the claim is then still this session's, as only a session's expiry lets another instance take
     * it over, and the proof is renewed long before its deadline, a third of the timeout, at which this instance
     * interrupts its running items. Proven longer ago, the run writes its start again, at the version written, as any
     * run does ({@code START}), and its answer is a proof: the write fails if the claim was taken over meanwhile. It writes
     * its start again, too, when an operator switched failover off since it was written ahead: a claim whose start was
     * written ahead is run again when orphaned ({@link TakeOverRule#runsOrphan}), so a run begins on one only where
     * repeating it is allowed, and under failover off every run that begins has its own start written.
     *
     * @param failover whether the job's failover is on now
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
     * Whether the session's last proof is young enough that nothing need renew it yet: sent no longer ago than a ninth
     * of the session timeout. A run begins with no write only on such a proof ({@link #decideWritten}): one that began
     * on an older proof, after the instance was idle and no check renewed it, would be interrupted a moment later at
     * the proof's deadline ({@link #proven}), before the checks that start once runs are here could renew it. While
     * runs are here, those checks ask for a proof once it is older ({@code ProofChecks}).
     *
     * @param sinceProven how long ago the request that last proved the session was sent; null when none did
     */
    public static boolean fresh(@Nullable Duration sinceProven, Duration sessionTimeout) {
        return sinceProven != null && sinceProven.multipliedBy(9).compareTo(sessionTimeout) <= 0;
    }

    /**
     * Whether the session's last proof through the ensemble's leader still vouches for a run: sent no longer ago than a
     * third of the session timeout. The leader cannot expire the session before a whole timeout after it, so a run that
     * starts on such a proof, and stops once it is older (see {@code ProofChecks}), ends well before another instance
     * can take its claim over. Asked when a run would begin with no write ({@link #decideWritten}) and again right
     * before the job's code, since a pause may fall between the two.
     *
     * @param sinceProven how long ago the request that last proved the session was sent; null when none did
     */
    public static boolean proven(@Nullable Duration sinceProven, Duration sessionTimeout) {
        return sinceProven != null && sinceProven.multipliedBy(3).compareTo(sessionTimeout) <= 0;
    }

    /**
     * How a run whose start was written but which did not begin is given up: nothing of it ran, so it is handed on
     * (the item's next owner runs it as the fire's own run, with failover on or off), or recorded skipped when its
     * item-fire was not due. Never {@code RELEASED}: that would say a run was cut, which {@code failover: false} does
     * not repeat.
     */
    public static ClaimState unbegunAs(Verdict verdict) {
        return verdict == Verdict.SKIP ? ClaimState.SKIPPED : ClaimState.HANDED_ON;
    }

    /**
     * How a run the rule or its start write refused gives its claim up: recorded skipped when its item-fire was not due;
     * handed on when nothing of it ran, its start written with no run after it ({@link #unbegunAs}) or not; released
     * when a run of it started before (a retry, {@link #givenUpAs}).
     *
     * @param startWritten whether a start of it was written that no run followed: before it left the queue, or while
     *     its run was abandoned (the instance stops, or interrupted its runs) as the write was on its way
     */
    public static ClaimState refusedAs(Claim claim, boolean startWritten, Verdict verdict) {
        if (startWritten) {
            return unbegunAs(verdict);
        }
        return verdict == Verdict.SKIP ? ClaimState.SKIPPED : givenUpAs(claim);
    }

    /**
     * The verdict for a retry of a run that started: it continues that run, with the context it was fired with (XXL-JOB
     * keeps a retry's original sharding parameter), so only what would make it a run of nobody's matters: the
     * reservation abandoned, the instance unavailable, the claim of another session. An item that moved meanwhile is
     * not started by its new owner while this run holds its claim.
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
     * How a process releases a claim an earlier session of its own left: as {@link #givenUpAs} says, but handed on when
     * the process knows the run never began although its start may be written (sent, never answered). Released, a run
     * that began and was cut is recorded failed under {@code failover: false}; handed on, a run that never began is
     * the fire's own run of the item, and runs.
     *
     * @param neverBegunHere whether this process sent the start without an answer and never began the run
     */
    public static ClaimState releasedAs(Claim claim, boolean neverBegunHere) {
        return neverBegunHere ? ClaimState.HANDED_ON : givenUpAs(claim);
    }
}
