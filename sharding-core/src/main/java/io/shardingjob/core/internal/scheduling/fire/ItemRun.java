package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.scheduling.job.Owed;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One run of one item of one fire on this instance, from the moment it is handed to the item executor to its recorded
 * end: Quartz's {@code JobRunShell}, Airflow's {@code TaskInstance}. Every creator of runs makes one (a fire, the
 * audit's make-ups and take-overs, this session's own claims the audit found); the {@link ItemRunner} executes it.
 *
 * <p>It holds its claim as held: the claim it was handed on with, then each version a write of this run answered
 * (its start, written ahead of it or by itself, and its retries). Nothing else keeps it. Its {@link State} moves only
 * through the transitions below, each asked on the run's own thread but the last ({@link #recorded}), which the answer
 * of its end's write makes. The transitions are what writes this instance's memory of the run ({@link RunMemory}):
 * its item attached and freed, its start unanswered, its fire no longer claimed whole here.
 */
final class ItemRun {

    /** Where a run stands: {@code CLAIMED}, {@code STARTED}, {@code RUNNING} and {@code ENDED} lead on, the others end it. */
    enum State {
        /** Handed to the item executor with its claim, or leaving its queue: its start not written by it yet. */
        CLAIMED,
        /** Its start is written (ahead of it, with its claim, or by itself): it may enter the job's code. */
        STARTED,
        /** In the job's code, or between its retries. */
        RUNNING,
        /** Its run ended: the write of how it ended is queued, or on its way. */
        ENDED,
        /** Its end is recorded, or owed and written later before this session's audit acts on its claim. */
        RECORDED,
        /** Given up without entering the job's code: the item's owner runs it as the fire's own run. */
        HANDED_ON,
        /** Recorded as not run: its item-fire was not due. */
        SKIPPED,
        /** Taken over by another instance: what this run would write is not recorded. */
        LOST,
        /** Its start was not answered: whether it was written is unknown, and this session's audit decides again. */
        UNANSWERED,
        /** Released while it waited in the queue, with nothing written of it: its claim is left to the audit. */
        DROPPED;

        /** Whether a run in this state is over: nothing of it runs, or is written by it, any more. */
        boolean isFinal() {
            return next().isEmpty();
        }

        /** The states a run in this state may move to. */
        Set<State> next() {
            return NEXT.getOrDefault(this, Set.of());
        }
    }

    /** The transitions, computed once: every move of every run asks them. */
    private static final Map<State, Set<State>> NEXT = Map.of(
            State.CLAIMED,
            Set.of(State.STARTED, State.HANDED_ON, State.SKIPPED, State.LOST, State.UNANSWERED, State.DROPPED),
            // A start written ahead of it on a proof that aged meanwhile is written again, by itself.
            State.STARTED,
            Set.of(State.STARTED, State.RUNNING, State.HANDED_ON, State.SKIPPED, State.LOST, State.UNANSWERED),
            // Its session's proof aged before the job's code: nothing of it ran, so it is handed on.
            State.RUNNING,
            Set.of(State.ENDED, State.HANDED_ON),
            State.ENDED,
            Set.of(State.RECORDED, State.LOST));

    /**
     * What a run finds as it leaves the item executor's queue ({@link #leave}): the outcome of its fire's starts written
     * ahead ({@link FireStarts}), which decides whether it still writes its start.
     *
     * @param ahead what came of its start written ahead of it by a run of its fire that left before; null when none was
     * @param writtenAhead its claim as started before it left the queue, if it was: by that start, or made so
     * @param last whether no other run of its fire is still to leave the queue
     */
    record Leaving(
            FireStarts.@Nullable Ahead ahead, @Nullable Claim writtenAhead, boolean last) {

        /** How its start written ahead failed, when it was taken over meanwhile or unanswered; null otherwise. */
        RunStarts.@Nullable Began failedAhead() {
            RunStarts.Began began = ahead == null ? null : ahead.began();
            return began == RunStarts.Began.LOST || began == RunStarts.Began.UNKNOWN ? began : null;
        }
    }

    private final RunMemory memory;
    private final ShardingContext context;
    private final Claim claim;
    private final Reservation reservation;
    private final FireOrigin origin;
    private final @Nullable FireStarts starts;
    private volatile Claim held;
    private volatile State state = State.CLAIMED;
    private final CompletableFuture<Void> startWritten = new CompletableFuture<>();

    /**
     * @param claim the claim won for it: by its fire, made ahead of its fire, or by the audit
     * @param starts the runs of its fire handed on with it, whose starts may be written ahead of them; null for a run
     *     handed on alone
     * @param origin how its fire was asked for: the job parameter it runs with, and whether it was due
     */
    ItemRun(
            RunMemory memory,
            ShardingContext context,
            Claim claim,
            Reservation reservation,
            @Nullable FireStarts starts,
            FireOrigin origin) {
        this.memory = memory;
        this.context = context;
        this.claim = claim;
        this.held = claim;
        this.reservation = reservation;
        this.starts = starts;
        this.origin = origin;
    }

    ShardingContext context() {
        return context;
    }

    /** The claim it was handed on with: the key of its item-fire in this instance's memory. */
    Claim claim() {
        return claim;
    }

    /** The claim as this run holds it now: writes of it go at this version. */
    Claim held() {
        return held;
    }

    int item() {
        return claim.item();
    }

    Reservation reservation() {
        return reservation;
    }

    /** Whether its instance abandoned its runs meanwhile: it stops, or lost its connection. */
    boolean isAbandoned() {
        return reservation.isAbandoned();
    }

    FireOrigin origin() {
        return origin;
    }

    @Nullable
    FireStarts starts() {
        return starts;
    }

    State state() {
        return state;
    }

    /**
     * It leaves its queue, on the thread that runs it (or the hand-off thread, refused by its executor), and takes
     * what came of its start written ahead, waiting for that answer if it is on its way.
     */
    Leaving leave(long sessionId) {
        FireStarts.Leaving leaving = starts == null ? new FireStarts.Leaving(null, true) : starts.leave(claim.item());
        FireStarts.Ahead ahead =
                leaving.ahead() == null ? null : leaving.ahead().join();
        Claim writtenAhead =
                ahead != null && ahead.began() == RunStarts.Began.STARTED ? ahead.written() : startedBefore(sessionId);
        return new Leaving(ahead, writtenAhead, leaving.last());
    }

    /**
     * Its claim as written already when it leaves its queue, if its start is: made ahead of its fire with its start, or
     * this session's own claim whose start was written while its answer was lost, as the audit read it. Null when it is
     * still to write its start.
     */
    @Nullable
    Claim startedBefore(long sessionId) {
        return claim.state() == ClaimState.RUNNING && claim.sessionId() == sessionId ? claim : null;
    }

    /** Its start is written, at this version: by itself, ahead of it, or with its claim. */
    void started(Claim written) {
        held = written;
        move(State.STARTED);
        startWritten.complete(null);
    }

    /** Completes on the run's thread once its start is written (or found so), before the job's code; never if not. */
    CompletableFuture<Void> whenStarted() {
        return startWritten;
    }

    /** It holds its item here from now on, on its thread; false when its reservation was released or abandoned. */
    boolean attach() {
        return memory.attach(claim.item(), reservation);
    }

    /**
     * It enters the job's code: from now on it runs on the session's last proof (see {@code ProofChecks}), and it is
     * no longer a run that never began, whatever became of a start of it sent before.
     */
    void entering() {
        move(State.RUNNING);
        memory.entering(slot(), reservation);
    }

    /** A retry or a checkpoint of it was recorded in its claim, at this version. */
    void rewritten(Claim written) {
        held = written;
    }

    /** Its run ended; how is being written: {@code released} when it was cut, for the item's next owner. */
    void ended(boolean released) {
        move(State.ENDED);
        if (released) {
            notClaimedWhole();
        }
    }

    /**
     * Whether no other item of its fire still runs here, asked as its end (or its claim given up) is about to be
     * written: its write need not wait for theirs.
     */
    boolean lastOfItsFireHere() {
        return memory.endingLastOfItsFire(claim);
    }

    /** Its end's write was answered (or is owed): its item is free again once this is told. */
    void recorded() {
        move(State.RECORDED);
    }

    /**
     * It leaves without running: {@code exit} says why. But for a skip, its claim leaves this session's hands with
     * nothing of it run here, so its fire is no longer one this session's audit may pass over as claimed whole.
     */
    void exit(State exit) {
        if (!exit.isFinal() || exit == State.RECORDED) {
            throw new IllegalArgumentException(exit + " is not a way out of a run");
        }
        move(exit);
        if (exit == State.UNANSWERED) {
            // Its claim may say RUNNING although nothing of it ran, which only this process knows once its session is
            // gone: the next session releases it as never begun.
            memory.startUnanswered(slot());
        }
        if (exit != State.SKIPPED) {
            notClaimedWhole();
        }
    }

    /**
     * Frees its item here, once what it writes is answered (or nothing is): its claim no longer this session's open
     * business. What the item is owed, if a fire or an audit found it busy meanwhile; else null.
     */
    @Nullable
    Owed release() {
        return memory.released(claim, reservation);
    }

    /** Its claim is no longer this session's open business; its item was never attached here (see {@link #attach}). */
    void settle() {
        memory.settled(claim);
    }

    /**
     * Its claim leaves this session's hands: its fire is no longer one this session's audit may pass over as whole; the
     * audit reads it, and runs the claim as its own stranded one if it is still held.
     */
    private void notClaimedWhole() {
        memory.notClaimedWhole(claim.fireTime());
    }

    private Slot slot() {
        return new Slot(claim.item(), claim.fireTime());
    }

    private synchronized void move(State next) {
        if (!state.next().contains(next)) {
            throw new IllegalStateException("item " + claim.item() + " of the fire at " + claim.fireTime() + ": "
                    + state + " cannot move to " + next);
        }
        state = next;
    }

    @Override
    public String toString() {
        return "run of item " + claim.item() + " of the fire at " + claim.fireTime() + " (" + state + ")";
    }
}
