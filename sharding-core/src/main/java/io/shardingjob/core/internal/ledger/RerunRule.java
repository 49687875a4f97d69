package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import java.time.Instant;
import java.util.List;

/**
 * Which claims an operator's re-run of one past fire reopens, as a pure function of the fire as read: its
 * {@code FAILED} claims, each given up unstarted ({@code HANDED_ON}, source {@code RETRY}) so that the item's owner
 * takes it over as any handed-on claim and runs it as the fire's own run. ZooKeeper then decides the race: each claim is
 * written at the version read, so of two re-runs (or a re-run and the fire's retirement) one wins.
 */
public final class RerunRule {

    private RerunRule() {}

    public sealed interface Verdict permits Reopen, Refused {}

    /** Reopen these failed claims, as read, each written at its version ({@link #reopened}). */
    public record Reopen(List<Claim> failed) implements Verdict {

        public List<Integer> items() {
            return failed.stream().map(Claim::item).sorted().toList();
        }
    }

    /** Why a re-run reopens nothing. */
    public enum Reason {
        /** The fire is still to come: nothing of it ran. */
        NOT_DUE_YET,
        /** The ledger holds no claim of the fire: retired after the retention, or never fired. */
        NOT_IN_LEDGER,
        /** No item failed, and some still run or wait to run (a re-run may be under way). */
        RUNNING,
        NO_FAILURE
    }

    /** Nothing reopened, and why; for {@link Reason#RUNNING}, the items that still run or wait to run. */
    public record Refused(Reason reason, List<Integer> items) implements Verdict {}

    /** What a re-run of the fire reopens; a fire after {@code now} is still to come. */
    public static Verdict decide(FireView fire, Instant now) {
        if (fire.fireTime().isAfter(now)) {
            return new Refused(Reason.NOT_DUE_YET, List.of());
        }
        if (fire.claims().isEmpty()) {
            return new Refused(Reason.NOT_IN_LEDGER, List.of());
        }
        List<Claim> failed = fire.claims().values().stream()
                .filter(claim -> claim.state() == ClaimState.FAILED)
                .sorted(java.util.Comparator.comparingInt(Claim::item))
                .toList();
        if (!failed.isEmpty()) {
            return new Reopen(failed);
        }
        List<Integer> open = fire.claims().values().stream()
                .filter(claim -> claim.state().isOpen())
                .map(Claim::item)
                .sorted()
                .toList();
        return open.isEmpty() ? new Refused(Reason.NO_FAILURE, List.of()) : new Refused(Reason.RUNNING, open);
    }

    /**
     * A failed claim reopened: handed on unstarted, with source {@code RETRY} and its retries counted from 0 again, so
     * that the item's owner takes it over ({@link TakeOverRule#toTakeOver}) and runs it once, with the fire's time and
     * context, failover on or off (nothing of this run started), from the last checkpoint the failed run saved. The last
     * owner's instance, session, attempt and token stay for the record; a given-up claim is taken over whatever its
     * session.
     */
    public static Claim reopened(Claim failed, Instant now) {
        return new Claim(
                failed.item(),
                failed.fireTime(),
                failed.instanceId(),
                failed.sessionId(),
                failed.attempt(),
                ClaimState.HANDED_ON,
                ExecutionSource.RETRY,
                failed.epoch(),
                failed.total(),
                0,
                now,
                null,
                failed.version(),
                failed.fencingToken(),
                false,
                failed.checkpoint());
    }
}
