package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of an item's end once its write was answered: a recorded end goes to this instance's memory (for the
 * leader's keeper) and to the completion checks; an end that could not be written is owed, and written later in one
 * request, before this session's audit acts on its claim.
 */
public final class ItemEnds {

    private static final Logger log = LoggerFactory.getLogger(ItemEnds.class);
    private final JobView view;
    private final ClaimWrites claims;
    private final RunMemory memory;
    private final CompletionChecks completionChecks;

    public ItemEnds(JobView view, ClaimWrites claims, RunMemory memory, CompletionChecks completionChecks) {
        this.view = view;
        this.claims = claims;
        this.memory = memory;
        this.completionChecks = completionChecks;
    }

    /**
     * How the final write of a run (or of a claim given up) came out: recorded, lost to another instance (then
     * {@code lost} says so), or not answered (then its end is owed, and written later).
     */
    void answered(
            Claim ended,
            Optional<Claim> stored,
            @Nullable Throwable failure,
            Runnable lost,
            boolean lastOfItsFireHere) {
        if (failure != null) {
            log.warn(
                    "Job {}: could not record item {} of the fire at {} as {}; will retry: {}",
                    view.jobName(),
                    ended.item(),
                    ended.fireTime(),
                    ended.state(),
                    failure.toString());
            memory.unwritten(ended);
        } else if (stored.isEmpty()) {
            lost.run();
        } else if (ended.state() != ClaimState.RELEASED && ended.state() != ClaimState.HANDED_ON) {
            itemEnded(stored.get(), lastOfItsFireHere);
        }
    }

    /**
     * Writes the ends of items that could not be recorded when they ended, in one request.
     *
     * @return whether nothing is owed any more: until then, this session's audit must not act on these claims
     */
    public CompletableFuture<Boolean> writeOwed() {
        List<Claim> owed = memory.takeUnwritten();
        if (owed.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        // Directly, not through the group commit: the audit that asks for this runs on the coordination loop, which
        // may be where the group commit drains.
        return claims.commitAsync(owed, Instant.EPOCH, List.of()).handle((committed, failure) -> {
            if (failure != null) {
                owed.forEach(memory::unwritten);
                log.debug("Job {}: {} ends still owed: {}", view.jobName(), owed.size(), failure.toString());
                return false;
            }
            ClaimWrites.Written written = committed.written();
            written.lost()
                    .forEach(lost -> log.warn(
                            "Job {}: item {} of the fire at {} was taken over before its end could be recorded",
                            view.jobName(),
                            lost.item(),
                            lost.fireTime()));
            written.written().stream()
                    .filter(claim -> claim.state() != ClaimState.RELEASED)
                    .forEach(claim -> itemEnded(claim, true));
            return true;
        });
    }

    /** An item's end is recorded: {@code stored} is its claim as the ledger holds it now. */
    private void itemEnded(Claim stored, boolean lastOfItsFireHere) {
        memory.recordedEnds().recorded(stored);
        completionChecks.itemEnded(stored, lastOfItsFireHere);
    }
}
