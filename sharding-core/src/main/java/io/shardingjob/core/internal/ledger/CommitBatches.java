package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * What one request of a {@link GroupCommit} holds, one batch of queued writes: under which assignment check the batch
 * goes and which claims of the next fire go with it ({@link GroupCommit.Ahead}); and what its answer tells each
 * waiting writer.
 */
final class CommitBatches {

    static final int UNGUARDED = -1;

    private final GroupCommit.Ahead ahead;

    CommitBatches(GroupCommit.Ahead ahead) {
        this.ahead = ahead;
    }

    record Pending(GroupCommit.Write write, CompletableFuture<Optional<Claim>> result) {

        Claim claim() {
            return write.claim();
        }
    }

    record Request(
            List<Pending> batch, Instant nextFire, List<Claim> next, FireNodes fireNodes, AssignmentGuard guard) {

        List<Claim> writes() {
            return batch.stream().map(Pending::claim).toList();
        }
    }

    /** The request for a batch; null when nothing of it is left to send (its starts refused at once). */
    @Nullable
    Request request(List<Pending> queued) {
        GroupCommit.Ahead.Next following = claimsAhead(queued);
        int newest = newestDecision(queued, following);
        Set<Slot> guarded = new HashSet<>();
        List<Pending> batch = decidedUnder(newest, queued, guarded);
        if (batch.isEmpty()) {
            return null;
        }
        AssignmentGuard guard = newest == UNGUARDED ? AssignmentGuard.NONE : new AssignmentGuard(newest, guarded);
        List<Claim> next = following.claims().stream()
                .map(claim -> following.assignmentVersion() == newest ? claim : AssignmentGuard.unstarted(claim))
                .toList();
        Instant nextFire = next.isEmpty() ? Instant.EPOCH : next.get(0).fireTime();
        return new Request(batch, nextFire, next, following.fireNodes(), guard);
    }

    /** Hands each writer of the batch what came of its write, once the claims made ahead are kept. */
    void answer(Request request, ClaimWrites.@Nullable Committed committed, @Nullable Throwable failure) {
        if (!request.next().isEmpty()) {
            // Kept before the ends are answered: a fire waiting for its ends is over once the next is ready.
            ahead.claimed(request.nextFire(), request.next(), failure == null ? committed.claimed() : null);
        }
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
            request.batch().forEach(pending -> pending.result.completeExceptionally(cause));
            return;
        }
        Map<Slot, Pending> bySlot = new HashMap<>();
        request.batch().forEach(pending -> bySlot.put(slot(pending.claim()), pending));
        ClaimWrites.Written written = committed.written();
        written.written().forEach(stored -> bySlot.remove(slot(stored)).result.complete(Optional.of(stored)));
        written.moved()
                .forEach(moved ->
                        bySlot.remove(slot(moved)).result.completeExceptionally(new AssignmentGuard.Moved(moved)));
        // Lost (taken over or retired) or not written at all: no longer this writer's.
        bySlot.values().forEach(pending -> pending.result.complete(Optional.empty()));
    }

    /**
     * The version of the assignment a request checks: the newest its starts and its claims made ahead were decided
     * under. A start decided under an older one would be refused by the check, so it is refused at once; a claim made
     * ahead under an older one goes reserved, its start left to its run.
     */
    private static int newestDecision(List<Pending> queued, GroupCommit.Ahead.Next following) {
        return Math.max(
                queued.stream()
                        .mapToInt(pending -> pending.write().guard())
                        .max()
                        .orElse(UNGUARDED),
                following.claims().isEmpty() ? UNGUARDED : following.assignmentVersion());
    }

    /**
     * The queued writes to send under the check of {@code newest}, their slots added to {@code guarded} for the starts;
     * the starts decided under another version are refused at once.
     */
    private static List<Pending> decidedUnder(int newest, List<Pending> queued, Set<Slot> guarded) {
        List<Pending> batch = new ArrayList<>(queued.size());
        for (Pending pending : queued) {
            int decidedUnder = pending.write().guard();
            if (decidedUnder == UNGUARDED) {
                batch.add(pending);
            } else if (decidedUnder == newest) {
                batch.add(pending);
                guarded.add(slot(pending.claim()));
            } else {
                pending.result.completeExceptionally(new AssignmentGuard.Moved(pending.claim()));
            }
        }
        return batch;
    }

    private GroupCommit.Ahead.Next claimsAhead(List<Pending> batch) {
        List<Claim> lastEnds = batch.stream()
                .filter(pending -> pending.write().lastOfFire())
                .map(Pending::claim)
                .toList();
        if (lastEnds.isEmpty()) {
            return GroupCommit.Ahead.Next.NONE;
        }
        try {
            return ahead.claimsAfter(
                    lastEnds, batch.stream().map(Pending::claim).toList());
        } catch (RuntimeException ex) {
            // The ends are written all the same; the next fire claims its items at its own instant.
            return GroupCommit.Ahead.Next.NONE;
        }
    }

    private static Slot slot(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }
}
