package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.requests.SessionProof;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.LastAudit;
import io.shardingjob.core.internal.scheduling.job.LocalFires;
import io.shardingjob.core.internal.scheduling.job.OpenClaims;
import io.shardingjob.core.internal.scheduling.job.Reservations;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One item of one fire on this instance, from the moment its run leaves the executor's queue to its recorded end:
 * whether it may start ({@link RunStart}), its start written, its attempts run, and its end (or the claim given up)
 * queued in the group commit. A fire's runs and the claims the audit won come here through the {@link ItemHandOff}.
 */
public final class ItemRunner {

    private static final Logger log = LoggerFactory.getLogger(ItemRunner.class);

    private final JobView view;

    private final AuditDemand audits;

    /**
     * What a run uses of the ledger: the claims it writes, the claim of an earlier run it may wait on, and the proof
     * of the session a start written ahead relies on.
     */
    public record Ledger(ClaimWrites claims, LedgerReads reads, SessionProof proof) {}

    private final Ledger ledger;

    private final GroupCommit groupCommit;

    private final Reservations reservedItems;

    private final LastAudit lastAudit;

    private final OpenClaims openClaims;

    private final LocalFires localFires;

    private final ItemAttempts attempts;

    private final ItemEnds ends;

    private final ExecutionListener listener;

    private final DueFires dueFires;

    private final Supplier<Duration> sessionTimeout;

    private final ItemPace pace = new ItemPace();

    private final RunStarts starting;

    /**
     * @param commitExecutor where the group commit drains and items are timed out: the coordination scheduler
     * @param ahead the claims made ahead, which the group commit requests with the ends of a fire
     * @param sessionTimeout the session timeout the server granted: no run enters the job's code once nothing proved
     *     the session for a third of it, and a start written ahead of its run no longer starts it then
     */
    public ItemRunner(
            JobView view,
            AuditDemand audits,
            Ledger ledger,
            ScheduledExecutorService commitExecutor,
            RunMemory memory,
            ClaimsAhead ahead,
            ItemEnds ends,
            ExecutionListener listener,
            DueFires dueFires,
            Supplier<Duration> sessionTimeout) {
        this.view = view;
        this.audits = audits;
        this.ledger = ledger;
        this.groupCommit = new GroupCommit(ledger.claims(), commitExecutor, ahead);
        this.reservedItems = memory.reservations();
        this.lastAudit = memory.lastAudit();
        this.openClaims = memory.claims();
        this.localFires = memory.fires();
        this.attempts = new ItemAttempts(
                view,
                commitExecutor,
                listener,
                () -> RunStart.proven(ledger.proof().since(), sessionTimeout.get()));
        this.ends = ends;
        this.listener = listener;
        this.dueFires = dueFires;
        this.sessionTimeout = sessionTimeout;
        this.starting = new RunStarts(view, ledger.reads(), groupCommit, lastAudit, dueFires, pace);
    }

    /**
     * How many runs of the job are expected to leave the item executor's queue within {@link StartBatch#AHEAD} of one
     * another, at the pace this instance measured ({@link StartBatch#expected}): one when it is unknown.
     */
    public int leavingSoon() {
        return (int) Math.min(
                Integer.MAX_VALUE, StartBatch.expected(pace.running(), pace.itemNanos(), StartBatch.AHEAD.toNanos()));
    }

    /**
     * What the run of a claim the audit won (a make-up, a take-over, or one of this session's own) is told.
     *
     * @param origin how the claim's fire was asked for, as the audit read it: the job parameter the item runs with
     */
    ShardingContext claimedContext(Claim claim, FireOrigin origin) {
        String taskId = ShardingContext.taskId(view.jobName(), List.of(claim.item()), view.instanceId());
        return context(view.configuration(), taskId, claim, origin);
    }

    /**
     * One item's run: its results, and when its end was recorded in the ledger and the item released here.
     *
     * @param recorded completes once the claim's final write was answered (or is owed) and the item is free again
     */
    record Run(List<ItemResult> results, CompletableFuture<Void> recorded) {}

    /**
     * Runs one claimed item with its retries on the calling thread, and queues the write of how it ended: the thread is
     * free again at once, the item once the write is answered. Whether the run may start is decided here, when it left
     * its queue ({@link RunStart}), and the run starts only once its start is written: by itself, with the starts of
     * the runs of its fire that leave soon after it, ahead of it by a run that left before ({@link FireStarts}), or with
     * its claim, made ahead of its fire ({@link ClaimsAhead}).
     *
     * @param starts the runs of its fire handed on with it; null for a run handed on alone
     * @param origin how its fire was asked for: whether it was due asks it ({@link RunStart})
     */
    Run run(
            ItemExecutor job,
            ShardingContext context,
            Claim claim,
            Reservations.Reservation reservation,
            @Nullable FireStarts starts,
            FireOrigin origin) {
        int item = claim.item();
        FireStarts.Leaving leaving = starts == null ? new FireStarts.Leaving(null, true) : starts.leave(item);
        FireStarts.Ahead ahead =
                leaving.ahead() == null ? null : leaving.ahead().join();
        Claim writtenAhead =
                ahead != null && ahead.began() == RunStarts.Began.STARTED ? ahead.written() : started(claim);
        if (!reservedItems.start(item, reservation)) {
            if (writtenAhead != null || reservation.isAbandoned()) {
                // Released while it waited in the queue (its instance stops, or was cut off): handed on, as the rule
                // says of an abandoned run, so that the item's owner runs it without waiting for this session to end.
                return new Run(List.of(), handOnUnstarted(claim, writtenAhead, context));
            }
            nothingWritten(claim);
            openClaims.settled(claim);
            return new Run(List.of(), CompletableFuture.completedFuture(null));
        }
        long leftNanos = pace.left();
        AtomicReference<Claim> held = new AtomicReference<>(claim);
        List<ItemResult> results = List.of();
        CompletableFuture<Void> recorded = null;
        try {
            ShardingService.Versioned assignment = view.versionedAssignment();
            RunStart.Here here = starting.here(assignment.assignment(), List.of(item), origin);
            RunStarts.Began began;
            if (writtenAhead == null
                    && ahead != null
                    && ahead.began() != RunStarts.Began.MOVED
                    && ahead.began() != RunStarts.Began.NOT_ASKED) {
                // Written ahead and refused (taken over meanwhile), or unanswered: as a start of its own would be.
                began = ahead.began();
                startNotWritten(claim, context, began);
            } else {
                if (writtenAhead != null) {
                    held.set(writtenAhead);
                }
                RunStart.Verdict verdict = writtenAhead != null
                        ? RunStart.decideWritten(
                                writtenAhead,
                                reservation.isAbandoned(),
                                here,
                                view.configuration().failover(),
                                ledger.proof().since(),
                                sessionTimeout.get())
                        : RunStart.decide(claim, reservation.isAbandoned(), here);
                if (verdict == RunStart.Verdict.BEGIN) {
                    began = RunStarts.Began.STARTED;
                    if (starts != null) {
                        starting.refill(starts, assignment);
                    }
                } else {
                    began = verdict == RunStart.Verdict.START
                            ? starting.begin(held, reservation, leaving.last(), assignment, starts)
                            : RunStarts.Began.NOT_ASKED;
                    if (began == RunStarts.Began.MOVED) {
                        began = starting.beginUnderNext(held, reservation, assignment.version(), origin);
                    }
                    startNotWritten(claim, context, began);
                    boolean unbegun = writtenAhead != null || began == RunStarts.Began.ABANDONED;
                    if (verdict != RunStart.Verdict.START
                            || began == RunStarts.Began.MOVED
                            || began == RunStarts.Began.ABANDONED) {
                        recorded = refuse(held.get(), RunStart.refusedAs(held.get(), unbegun, verdict), context);
                    }
                }
            }
            if (began == RunStarts.Began.STARTED && recorded == null) {
                ends.begins(claim);
                reservedItems.entering(reservation);
                results = attempts.run(
                        job,
                        context,
                        claim.source(),
                        claim.fireTime(),
                        claim.retry(),
                        () -> RunStart.decideRetry(
                                        held.get(),
                                        reservation.isAbandoned(),
                                        starting.here(view.assignment(), List.of(), origin))
                                == RunStart.Verdict.START,
                        retry -> write(held, held.get().atRetry(retry), context));
                // None when the session's proof aged past its third before the job's code: nothing of it ran, so it is
                // handed on as any run that did not begin, and its owner runs it as the fire's own, failover or not.
                recorded = results.isEmpty()
                        ? refuse(held.get(), RunStart.unbegunAs(RunStart.Verdict.GIVE_UP), context)
                        : end(claim, held.get(), results.get(results.size() - 1), reservation, context);
            }
        } finally {
            // Pool threads are reused: an interrupt meant for this item must not reach the next one.
            Thread.interrupted();
            pace.ended(leftNanos);
            Runnable release = () -> {
                openClaims.settled(claim);
                if (reservedItems.endRun(item, reservation)) {
                    audits.soon();
                }
            };
            if (recorded == null) {
                nothingWritten(claim);
                release.run();
                recorded = CompletableFuture.completedFuture(null);
            } else {
                recorded = recorded.whenComplete((done, failure) -> release.run());
            }
        }
        return new Run(results, recorded);
    }

    /** Queues the write of how the run ended, at the version held. */
    private CompletableFuture<Void> end(
            Claim claim, Claim held, ItemResult last, Reservations.Reservation reservation, ShardingContext context) {
        // An item interrupted because this instance stops or lost its connection is presumed unfinished, however it
        // returned: its claim goes to the item's next owner.
        ClaimState end = reservation.isAbandoned()
                ? ClaimState.RELEASED
                : last.succeeded() ? ClaimState.DONE : ClaimState.FAILED;
        Claim ended = held.with(end, view.now());
        if (end == ClaimState.RELEASED) {
            // The item's owner takes it over: this instance's audit, when it still owns the item.
            localFires.whole().released(claim.fireTime());
        }
        boolean lastHere = openClaims.endingLastOfItsFire(claim);
        return groupCommit.endLater(ended, lastHere).handle((stored, failure) -> {
            ends.answered(ended, stored, failure, () -> claimLost(ended, context), lastHere);
            return null;
        });
    }

    /**
     * A run its executor refused to take ({@link ItemHandOff}): given up as a run released while it waited in the queue
     * is, and its item freed here once that is recorded. A run its item executor never takes would otherwise hold both
     * for good: no later fire here would run the item, and nobody else would take the claim over while this session
     * lives. Waits for the answer to a start written ahead of it, so never on ZooKeeper's event thread.
     */
    Run refused(
            ShardingContext context, Claim claim, Reservations.Reservation reservation, @Nullable FireStarts starts) {
        int item = claim.item();
        FireStarts.Leaving leaving = starts == null ? new FireStarts.Leaving(null, true) : starts.leave(item);
        FireStarts.Ahead ahead =
                leaving.ahead() == null ? null : leaving.ahead().join();
        CompletableFuture<Void> given;
        if (ahead != null && (ahead.began() == RunStarts.Began.LOST || ahead.began() == RunStarts.Began.UNKNOWN)) {
            // Taken over meanwhile, or its start unanswered: nothing to give up here, as after a start of its own.
            startNotWritten(claim, context, ahead.began());
            nothingWritten(claim);
            openClaims.settled(claim);
            given = CompletableFuture.completedFuture(null);
        } else {
            Claim writtenAhead =
                    ahead != null && ahead.began() == RunStarts.Began.STARTED ? ahead.written() : started(claim);
            given = handOnUnstarted(claim, writtenAhead, context);
        }
        return new Run(List.of(), given.whenComplete((done, failure) -> {
            if (reservedItems.endRun(item, reservation)) {
                audits.soon();
            }
        }));
    }

    /**
     * Gives up a run that did not start, for the item's owner to run as the fire's own run: at the version of a start
     * written ahead of it, if one was (nothing of it ran), or at its claim's.
     */
    private CompletableFuture<Void> handOnUnstarted(
            Claim claim, @Nullable Claim writtenAhead, ShardingContext context) {
        CompletableFuture<Void> given = writtenAhead != null
                ? refuse(writtenAhead, RunStart.unbegunAs(RunStart.Verdict.GIVE_UP), context)
                : refuse(claim, RunStart.givenUpAs(claim), context);
        return given.whenComplete((done, failure) -> openClaims.settled(claim));
    }

    /**
     * The claim itself when its start is written already: made ahead of its fire with its start ({@link
     * io.shardingjob.core.internal.ledger.StartBatch#writesAhead}), or this session's own claim whose start was written
     * while its answer was lost, as the audit read it. Null when its run is still to write its start.
     */
    private @Nullable Claim started(Claim claim) {
        return claim.state() == ClaimState.RUNNING && claim.sessionId() == view.sessionId() ? claim : null;
    }

    /**
     * The claim leaves this session's hands with nothing written of it here: its start was unanswered (it may be held
     * still, {@code RESERVED} or even {@code RUNNING}), it was taken over, or its reservation was released. Its fire is
     * no longer one this session's audit may pass over as whole: the audit reads it, and runs the claim as its own
     * stranded one if it is still held.
     */
    private void nothingWritten(Claim claim) {
        localFires.whole().released(claim.fireTime());
    }

    /** A start that was not written: taken over, or unanswered; says so, and the audit decides again on the latter. */
    private void startNotWritten(Claim claim, ShardingContext context, RunStarts.Began began) {
        if (began == RunStarts.Began.LOST) {
            claimLost(claim, context);
        } else if (began == RunStarts.Began.UNKNOWN) {
            log.warn(
                    "Job {}: could not record the start of item {} of the fire at {}; not starting it",
                    view.jobName(),
                    claim.item(),
                    claim.fireTime());
            ends.startUnanswered(claim);
            audits.soon();
        }
    }

    /**
     * A run the rule does not let start: its claim is recorded skipped, or given up for the item's owner, at the version
     * held (its start's, when that was written ahead of it).
     */
    private CompletableFuture<Void> refuse(Claim claim, ClaimState state, ShardingContext context) {
        log.info(
                "Job {} on {}: item {} of the fire at {} does not start here; recorded {}",
                view.jobName(),
                view.instanceId(),
                claim.item(),
                claim.fireTime(),
                state);
        if (state != ClaimState.SKIPPED) {
            localFires.whole().released(claim.fireTime());
        }
        Claim given = claim.with(state, view.now());
        boolean lastHere = openClaims.endingLastOfItsFire(claim);
        return groupCommit.endLater(given, lastHere).handle((stored, failure) -> {
            ends.answered(given, stored, failure, () -> claimLost(given, context), lastHere);
            if (state != ClaimState.SKIPPED) {
                // This instance may still own the item (it was only cut off a while): its audit takes the claim
                // over.
                audits.soon();
            }
            return null;
        });
    }

    private void claimLost(Claim next, ShardingContext context) {
        log.warn(
                "Job {}: item {} of the fire at {} was taken over by another instance; this run's {} is not recorded",
                view.jobName(),
                next.item(),
                next.fireTime(),
                next.state());
        tell(view.jobName(), () -> listener.claimLost(context, next.fireTime()));
    }

    /**
     * Records a retry in the claim at the version held, and waits for the answer: a retry starts only while the claim
     * is still this owner's. Lost: another instance owns it now, say so and touch nothing else.
     */
    private boolean write(AtomicReference<Claim> held, Claim next, ShardingContext context) {
        try {
            Optional<Claim> stored = groupCommit.write(next);
            if (stored.isPresent()) {
                held.set(stored.get());
                return true;
            }
            claimLost(next, context);
            return false;
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

    /** What the item is told; the job parameter is its fire's (an operator's fire's own), else the configured one. */
    ShardingContext context(JobConfiguration config, String taskId, Claim claim, FireOrigin origin) {
        return new ShardingContext(
                view.jobName(),
                taskId,
                claim.total(),
                claim.item(),
                config.itemParameters().get(claim.item()),
                origin.parameterOr(config.jobParameter()),
                claim.epoch(),
                view.instanceId(),
                claim.fencingToken(),
                claim.fireTime(),
                claim.source(),
                origin.chainOr(view.jobName()));
    }

    /** Tells a listener; a listener that fails is logged, and the run goes on. */
    static void tell(String jobName, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: a listener failed", jobName, ex);
        }
    }
}
