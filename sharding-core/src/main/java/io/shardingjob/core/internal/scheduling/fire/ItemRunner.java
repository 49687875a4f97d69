package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.requests.SessionProof;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Owed;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the {@link ItemRun runs} of one job on this instance to the item executor and executes each on the thread that
 * took it: as it leaves the queue, whether it may start ({@link RunStart}), its start queued in the group commit, its
 * attempts ({@link ItemAttempts}), and its end (or its claim given up) queued. What to write, and what the answers
 * mean, is {@link RunStarts}' and {@link RunEnds}'.
 */
public final class ItemRunner {

    private static final Logger log = LoggerFactory.getLogger(ItemRunner.class);

    /** What a run uses of the ledger: its writes' group commit, earlier runs' claims, and which item-fires were due. */
    public record Ledger(GroupCommit commits, LedgerReads reads, DueFires due) {}

    /**
     * What times a run: the session's last proof and the timeout the server granted (no run enters the job's code once
     * nothing proved the session for a third of it, and a start written ahead of its run no longer starts it then), and
     * the coordination scheduler that times items out.
     */
    public record Timing(
            SessionProof proof, Supplier<Duration> sessionTimeout, ScheduledExecutorService scheduler, Clock clock) {}

    private final JobView view;
    private final String jobName;
    /** This instance's id. */
    private final String me;

    private final AuditDemand audits;
    private final Timing timing;
    private final RunMemory memory;
    private final ItemAttempts attempts;
    private final RunStarts.ItemPace pace = new RunStarts.ItemPace();
    private final RunStarts starting;
    private final RunEnds runEnds;
    private final GroupCommit commits;

    public ItemRunner(
            JobView view,
            AuditDemand audits,
            Ledger ledger,
            Timing timing,
            RunMemory memory,
            ItemEnds ends,
            ExecutionListener listener) {
        this.view = view;
        this.jobName = view.jobName();
        this.me = view.instanceId();
        this.audits = audits;
        this.timing = timing;
        this.attempts = new ItemAttempts(
                timing.scheduler(),
                listener,
                () -> RunStart.proven(
                        timing.proof().since(), timing.sessionTimeout().get()),
                timing.clock());
        this.starting =
                new RunStarts(view, ledger.reads(), ledger.commits(), memory, ledger.due(), pace, timing.clock());
        this.runEnds = new RunEnds(view, audits, ledger.commits(), ends, listener, timing.clock());
        this.memory = memory;
        this.commits = ledger.commits();
    }

    /** How many runs are expected to leave the queue within {@link StartBatch#AHEAD} of one another; one if unknown. */
    public int leavingSoon() {
        return (int) Math.min(
                Integer.MAX_VALUE, StartBatch.expected(pace.running(), pace.itemNanos(), StartBatch.AHEAD.toNanos()));
    }

    /** A run of its fire's claim, handed on with the runs of that fire ({@code starts}), or alone (null). */
    ItemRun runOf(
            ShardingContext context,
            Claim claim,
            Reservation reservation,
            @Nullable FireStarts starts,
            FireOrigin origin) {
        return new ItemRun(memory, context, claim, reservation, starts, origin);
    }

    /** The run of a claim the audit won (a make-up, a take-over, one of this session's own), handed on alone. */
    ItemRun claimedRun(Claim claim, Reservation reservation, FireOrigin origin) {
        String taskId = ShardingContext.taskId(jobName, List.of(claim.item()), me);
        return runOf(context(view.configuration(), taskId, claim, origin), claim, reservation, null, origin);
    }

    /** @param recorded completes once the claim's final write was answered (or is owed) and the item is free again */
    record Run(List<ItemResult> results, CompletableFuture<Void> recorded) {}

    /**
     * Hands one run to the executor from a fire's caller or the hand-off thread. Refused, the run is given up on the
     * hand-off thread ({@code refusals}), where it may wait for the answer to a start written ahead of it.
     */
    CompletableFuture<Run> handOn(Executor executor, Executor refusals, ItemExecutor job, ItemRun run) {
        CompletableFuture<Run> done = new CompletableFuture<>();
        try {
            // completeAsync hands the task to the executor as given (supplyAsync may swap the common pool for threads
            // of its own), and lets a refusal through.
            return done.completeAsync(() -> run(job, run), executor);
        } catch (RejectedExecutionException full) {
            return done.completeAsync(() -> refused(run), refusals);
        }
    }

    /**
     * Executes a run with its retries, and queues the write of how it ended: the thread is free again at once, the item
     * once the write is answered. The run starts only once its start is written: by itself, with the starts of the runs
     * that leave soon after it, ahead of it by a run that left before ({@link FireStarts}), or with its claim, made
     * ahead of its fire ({@link ClaimsAhead}).
     */
    Run run(ItemExecutor job, ItemRun run) {
        JobSnapshot now = view.snapshot();
        ItemRun.Leaving leaving = run.leave(now.sessionId());
        if (!run.attach()) {
            return new Run(List.of(), runEnds.dropQueued(run, leaving.writtenAhead()));
        }
        long leftNanos = pace.left();
        List<ItemResult> results = List.of();
        CompletableFuture<Void> recorded = null;
        try {
            recorded = begin(run, leaving, now);
            if (run.state() == ItemRun.State.STARTED) {
                results = execute(job, run, now.configuration());
                // None when the session's proof aged past its third before the job's code: nothing of it ran, so it is
                // handed on as any run that did not begin, and its owner runs it as the fire's own, failover or not.
                if (results.isEmpty()) {
                    recorded = runEnds.refuse(run, RunStart.unbegunAs(RunStart.Verdict.GIVE_UP));
                } else {
                    GroupCommit.Write end = runEnds.endOf(run, results.get(results.size() - 1));
                    recorded = runEnds.recorded(run, end, commits.queue(end));
                }
            }
        } finally {
            // Pool threads are reused: an interrupt meant for this item must not reach the next one.
            Thread.interrupted();
            pace.ended(leftNanos);
            recorded = release(run, recorded);
        }
        return new Run(results, recorded);
    }

    /**
     * Decides whether the run begins, on what holds here as it leaves its queue, and writes its start if it must: the
     * run is {@code STARTED} when it may enter the job's code. Returns the write of its claim given up when it may not,
     * or null when nothing of it is written (its start was taken over, or unanswered).
     */
    private @Nullable CompletableFuture<Void> begin(ItemRun run, ItemRun.Leaving leaving, JobSnapshot now) {
        Claim writtenAhead = leaving.writtenAhead();
        RunStarts.Began failedAhead = leaving.failedAhead();
        if (writtenAhead == null && failedAhead != null) {
            // As a start of its own would be.
            runEnds.notStarted(run, failedAhead);
            return null;
        }
        RunStart.Here here = starting.here(now, List.of(run.item()), run.origin());
        if (writtenAhead != null) {
            run.started(writtenAhead);
        }
        RunStart.Verdict verdict = writtenAhead != null
                ? RunStart.decideWritten(
                        writtenAhead,
                        run.isAbandoned(),
                        here,
                        now.configuration().failover(),
                        timing.proof().since(),
                        timing.sessionTimeout().get())
                : RunStart.decide(run.claim(), run.isAbandoned(), here);
        if (verdict == RunStart.Verdict.BEGIN) {
            if (run.starts() != null) {
                starting.refill(run.starts(), now);
            }
            return null;
        }
        RunStarts.Began began = RunStarts.Began.NOT_ASKED;
        if (verdict == RunStart.Verdict.START) {
            GroupCommit.Write start = starting.startOf(run, leaving.last(), now);
            began = starting.began(run, commits.queue(start));
        }
        if (began == RunStarts.Began.MOVED) {
            began = starting.beginUnderNext(run, now);
        }
        runEnds.notStarted(run, began);
        boolean unbegun = writtenAhead != null || began == RunStarts.Began.ABANDONED;
        if (verdict != RunStart.Verdict.START || began == RunStarts.Began.MOVED || began == RunStarts.Began.ABANDONED) {
            return runEnds.refuse(run, RunStart.refusedAs(run.held(), unbegun, verdict));
        }
        return null;
    }

    /** Runs the job's code, with its retries, on the proof of the session and the claim the run holds. */
    private List<ItemResult> execute(ItemExecutor job, ItemRun run, JobConfiguration config) {
        run.entering();
        return attempts.run(
                job,
                config,
                run.context(),
                new RunCheckpoints(run, runEnds),
                run.claim().retry(),
                () -> RunStart.decideRetry(
                                run.held(), run.isAbandoned(), starting.here(view.snapshot(), List.of(), run.origin()))
                        == RunStart.Verdict.START,
                retry -> runEnds.retry(run, retry));
    }

    /** Frees the run's item here once its write is answered, or at once when nothing of it was written. */
    private CompletableFuture<Void> release(ItemRun run, @Nullable CompletableFuture<Void> recorded) {
        Runnable release = () -> {
            Owed owed = run.release();
            if (owed != null) {
                audits.owed(owed, run.claim().fireTime());
            }
        };
        if (recorded == null) {
            release.run();
            return CompletableFuture.completedFuture(null);
        }
        return recorded.whenComplete((done, failure) -> release.run());
    }

    /**
     * A run its executor refused to take: given up as a run released while it waited in the queue is, and its item
     * freed once that is recorded; kept, both would wait for a run that never comes while this session lives.
     */
    private Run refused(ItemRun run) {
        ItemRun.Leaving leaving = run.leave(view.sessionId());
        RunStarts.Began failedAhead = leaving.failedAhead();
        @Nullable CompletableFuture<Void> given;
        if (failedAhead != null) {
            // Nothing to give up here, as after a start of its own.
            runEnds.notStarted(run, failedAhead);
            run.settle();
            given = null;
        } else {
            given = runEnds.handOnUnstarted(run, leaving.writtenAhead());
        }
        return new Run(List.of(), release(run, given));
    }

    /** What the item is told; the job parameter is its fire's (an operator's fire's own), else the configured one. */
    ShardingContext context(JobConfiguration config, String taskId, Claim claim, FireOrigin origin) {
        return new ShardingContext(
                jobName,
                taskId,
                claim.total(),
                claim.item(),
                config.itemParameters().get(claim.item()),
                origin.parameterOr(config.jobParameter()),
                claim.epoch(),
                me,
                claim.fencingToken(),
                claim.fireTime(),
                claim.source(),
                origin.chainOr(jobName));
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
