package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How runs leave this instance's hands in the ledger, at the version the run holds: the write of a run's end, for its
 * runner to queue in the group commit, or its claim given up unstarted, queued here; a retry recorded in its claim; a
 * start that was not written. What the answers of the end writes do next is {@link ItemEnds}'.
 */
final class RunEnds {

    private static final Logger log = LoggerFactory.getLogger(RunEnds.class);
    private final JobView view;
    private final AuditDemand audits;
    private final GroupCommit commits;
    private final ItemEnds ends;
    private final ExecutionListener listener;
    private final Clock clock;

    RunEnds(
            JobView view,
            AuditDemand audits,
            GroupCommit commits,
            ItemEnds ends,
            ExecutionListener listener,
            Clock clock) {
        this.view = view;
        this.audits = audits;
        this.commits = commits;
        this.ends = ends;
        this.listener = listener;
        this.clock = clock;
    }

    /**
     * The write of how the run ended, at the version it holds, for its runner to queue. A run interrupted because this
     * instance stops or lost its connection is presumed unfinished, however it returned: its claim goes to the item's
     * next owner.
     */
    GroupCommit.Write endOf(ItemRun run, ItemResult last) {
        ClaimState end =
                run.isAbandoned() ? ClaimState.RELEASED : last.succeeded() ? ClaimState.DONE : ClaimState.FAILED;
        // Released, the item's owner takes it over: this instance's audit, when it still owns the item.
        run.ended(end == ClaimState.RELEASED);
        return GroupCommit.Write.end(run.held().with(end, clock.instant()), run.lastOfItsFireHere());
    }

    /**
     * A run the rule or its start write does not let start: its claim is recorded skipped, or given up for the item's
     * owner, at the version it holds (its start's, when that was written ahead of it).
     */
    CompletableFuture<Void> refuse(ItemRun run, ClaimState state) {
        Claim claim = run.held();
        log.info(
                "Job {} on {}: item {} of the fire at {} does not start here; recorded {}",
                view.jobName(),
                view.instanceId(),
                claim.item(),
                claim.fireTime(),
                state);
        boolean skipped = state == ClaimState.SKIPPED;
        run.exit(skipped ? ItemRun.State.SKIPPED : ItemRun.State.HANDED_ON);
        // Queued with the next writes, as a run's end is.
        GroupCommit.Write write = GroupCommit.Write.end(claim.with(state, clock.instant()), run.lastOfItsFireHere());
        CompletableFuture<Void> recorded = recorded(run, write, commits.queue(write));
        // Handed on, this instance may still own the item (it was only cut off a while): its audit takes the claim
        // over.
        return skipped ? recorded : recorded.whenComplete((done, failure) -> audits.soon());
    }

    /**
     * Gives up a run that did not start, for the item's owner to run as the fire's own run: at the version of a start
     * written ahead of it, if one was (nothing of it ran), or at its claim's.
     */
    CompletableFuture<Void> handOnUnstarted(ItemRun run, @Nullable Claim writtenAhead) {
        if (writtenAhead != null) {
            run.started(writtenAhead);
        }
        ClaimState given =
                writtenAhead != null ? RunStart.unbegunAs(RunStart.Verdict.GIVE_UP) : RunStart.givenUpAs(run.claim());
        return refuse(run, given).whenComplete((done, failure) -> run.settle());
    }

    /**
     * A run released while it waited in the queue (its instance stops, or was cut off): handed on, as the rule says of
     * an abandoned run, so that the item's owner runs it without waiting for this session to end; with nothing written
     * when it was neither started nor abandoned, its claim left to the audit.
     */
    CompletableFuture<Void> dropQueued(ItemRun run, @Nullable Claim writtenAhead) {
        if (writtenAhead != null || run.isAbandoned()) {
            return handOnUnstarted(run, writtenAhead);
        }
        run.exit(ItemRun.State.DROPPED);
        run.settle();
        return CompletableFuture.completedFuture(null);
    }

    /** What the answer to the run's end (or its claim given up) does: the run recorded or lost, and {@link ItemEnds}. */
    CompletableFuture<Void> recorded(ItemRun run, GroupCommit.Write write, CompletableFuture<Optional<Claim>> answer) {
        Claim written = write.claim();
        return answer.handle((stored, failure) -> {
            boolean lost = failure == null && stored.isEmpty();
            if (run.state() == ItemRun.State.ENDED) {
                if (lost) {
                    run.exit(ItemRun.State.LOST);
                } else {
                    run.recorded();
                }
            }
            ends.answered(written, stored, failure, () -> claimLost(run, written), write.lastOfFire());
            return null;
        });
    }

    /**
     * Records a retry in the claim at the version the run holds, and waits for the answer: a retry starts only while the
     * claim is still this owner's. Lost: another instance owns it now, say so and touch nothing else.
     */
    boolean retry(ItemRun run, int retry) {
        Claim next = run.held().atRetry(retry);
        try {
            return rewrite(run, next);
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not record retry {} of item {} of the fire at {}; not retrying: {}",
                    view.jobName(),
                    next.retry(),
                    next.item(),
                    next.fireTime(),
                    ex.toString());
            return false;
        }
    }

    /**
     * Records a checkpoint in the claim at the version the run holds, and waits for the answer: false when the claim
     * was taken over meanwhile, or the session that owns it expired, so that the run learns it is a zombie.
     *
     * @throws IllegalStateException when no answer came: whether it was recorded is unknown
     */
    boolean checkpoint(ItemRun run, String checkpoint) {
        Claim next = run.held().withCheckpoint(checkpoint);
        try {
            return rewrite(run, next);
        } catch (KeeperException.SessionExpiredException expired) {
            // The session that owns the claim is gone, so the claim is no longer this run's: it is taken over, or
            // will be, and the run is a zombie as surely as when the version moved.
            claimLost(run, next);
            return false;
        } catch (Exception ex) {
            throw new IllegalStateException(
                    "Job '" + view.jobName() + "': could not save the checkpoint of item " + next.item()
                            + " of the fire at " + next.fireTime() + ": " + ex,
                    ex);
        }
    }

    /**
     * Writes the run's claim rewritten by the run itself (a retry, a checkpoint) at the version it holds: true, and the
     * run holds the new version, when it was written; false when the claim was taken over meanwhile.
     */
    private boolean rewrite(ItemRun run, Claim next) throws Exception {
        Optional<Claim> stored = commits.write(next);
        if (stored.isPresent()) {
            run.rewritten(stored.get());
            return true;
        }
        claimLost(run, next);
        return false;
    }

    /** A start that was not written: taken over, or unanswered; says so, and the audit decides again on the latter. */
    void notStarted(ItemRun run, RunStarts.Began began) {
        if (began == RunStarts.Began.LOST) {
            run.exit(ItemRun.State.LOST);
            claimLost(run, run.held());
        } else if (began == RunStarts.Began.UNKNOWN) {
            log.warn(
                    "Job {}: could not record the start of item {} of the fire at {}; not starting it",
                    view.jobName(),
                    run.item(),
                    run.claim().fireTime());
            run.exit(ItemRun.State.UNANSWERED);
            audits.soon();
        }
    }

    private void claimLost(ItemRun run, Claim next) {
        log.warn(
                "Job {}: item {} of the fire at {} was taken over by another instance; this run's {} is not recorded",
                view.jobName(),
                next.item(),
                next.fireTime(),
                next.state());
        ItemRunner.tell(view.jobName(), () -> listener.claimLost(run.context(), next.fireTime()));
    }
}
