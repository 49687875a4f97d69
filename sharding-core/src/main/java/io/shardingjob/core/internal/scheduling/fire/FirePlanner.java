package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.ManualFireRecords;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.sharding.Assignment;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether and when one fire is planned here: not while this instance is unavailable, or the job or the instance is
 * disabled; with its origin read for an operator's fire (its job parameter, or the upstreams it still waits for); once
 * the assignment it runs under is known (no reshard pending) and audited (an item that moved here may still run on its
 * old owner). {@link FireClaims} then decides which items it runs and claims them. Neither wait holds a thread. Each
 * run starts later, when it leaves the item executor's queue, once its start is written (see {@link ItemRunner}).
 */
public final class FirePlanner {

    private static final Logger log = LoggerFactory.getLogger(FirePlanner.class);
    private final JobView view;
    private final AuditDemand audits;
    private final AssignmentWait assignmentWait;
    private final ManualFireRecords manualFires;
    private final RunMemory memory;
    private final ClaimsAhead ahead;
    private final Clock clock;

    public FirePlanner(
            JobView view,
            AuditDemand audits,
            AssignmentWait assignmentWait,
            ManualFireRecords manualFires,
            RunMemory memory,
            ClaimsAhead ahead,
            Clock clock) {
        this.view = view;
        this.audits = audits;
        this.assignmentWait = assignmentWait;
        this.manualFires = manualFires;
        this.memory = memory;
        this.ahead = ahead;
        this.clock = clock;
    }

    /**
     * What a fire runs here.
     *
     * @param won the claims this session holds for the fire and runs, in item order
     * @param origin how the fire was asked for: the job parameter its items run with
     * @param job the job as the fire was planned on: its runs are handed on with its configuration
     */
    record Plan(
            @Nullable String skipReason,
            long epoch,
            List<Claim> won,
            Map<Integer, Reservation> reservations,
            Map<Integer, String> skipped,
            FireOrigin origin,
            JobSnapshot job) {

        static Plan nothing(String reason, JobSnapshot job) {
            return new Plan(reason, -1, List.of(), Map.of(), Map.of(), FireOrigin.SCHEDULED, job);
        }
    }

    /**
     * What a fire is planned on once it may be: the assignment it runs under, audited, and the job as it stood then; or
     * why it runs nothing here ({@code assignment} null).
     *
     * @param runAs how its runs are told of: an operator's fire, for one its upstreams recorded as theirs
     * @param madeAhead the claims this session created ahead for the fire, by item
     * @param at when it was let through, on the job's clock: the time its claims are written with
     */
    record Gate(
            @Nullable String skipReason,
            ExecutionSource runAs,
            Map<Integer, Claim> madeAhead,
            @Nullable Assignment assignment,
            FireOrigin origin,
            JobSnapshot job,
            Instant at) {

        static Gate closed(String reason, JobSnapshot job) {
            return new Gate(reason, ExecutionSource.NORMAL, Map.of(), null, FireOrigin.SCHEDULED, job, Instant.EPOCH);
        }
    }

    /**
     * Lets the fire through once the assignment it runs under is known and audited; {@link FireClaims} then plans it.
     * Neither wait holds a thread: a job being resharded must not keep the few fire threads every job shares from the
     * other jobs' fires. In the steady case there is nothing to wait for, and the fire goes on at once on the snapshot
     * of the job that let it through; after a wait, on the job as it stands then.
     *
     * @param executor where the fire goes on after a wait: it sends requests, so never ZooKeeper's thread
     */
    CompletableFuture<Gate> gate(ExecutionSource source, Instant fireTime, Executor executor) {
        Map<Integer, Claim> madeAhead = memory.sawFire(fireTime);
        JobSnapshot now = view.snapshot();
        if (!now.available()) {
            // Its items of this fire are made up by whoever owns them once this instance is back or gone; for this
            // instance's own audit the fire is decided (late) at once.
            memory.planned(fireTime);
            return closed("not connected to ZooKeeper, or not started", madeAhead, now);
        }
        if (now.configuration().disabled()) {
            return closed("the job is disabled", madeAhead, now);
        }
        if (now.leftOut()) {
            // Also when it was the last enabled instance: with no leader left to reshard, it still owns items. A
            // leaving instance does not wait for an assignment that names it: none will until it takes items again.
            return closed(
                    "this instance is disabled for the job, or leaving it (not ready, or closing)", madeAhead, now);
        }
        FireOrigin origin = origin(source, fireTime);
        if (origin == null) {
            memory.planned(fireTime);
            audits.soon();
            return closed("its record could not be read; the audit makes its items up", madeAhead, now);
        }
        if (origin.isAwaiting() || origin.isAbandoned()) {
            return closed(
                    origin.isAbandoned()
                            ? "its upstream " + origin.abandonedBy() + " did not complete as it follows it"
                            : "it waits for its upstreams " + origin.awaiting(),
                    madeAhead,
                    now);
        }
        ExecutionSource runAs = origin.sourceOr(source);
        Assignment ready = assignmentWait.readyNow();
        if (ready != null && memory.auditedEpoch() == ready.epoch()) {
            return CompletableFuture.completedFuture(
                    new Gate(null, runAs, madeAhead, ready, origin, now, clock.instant()));
        }
        // Not asked again when known: a leader's look at a pending reshard writes it.
        CompletableFuture<Assignment> assigned =
                ready != null ? CompletableFuture.completedFuture(ready) : assignmentWait.whenReady(executor);
        return assigned.thenCompose(assignment -> audited(assignment, executor))
                .thenApply(assignment ->
                        new Gate(null, runAs, madeAhead, assignment, origin, view.snapshot(), clock.instant()));
    }

    /** A fire that runs nothing here: the claims made ahead for it go to whoever runs their items now. */
    private CompletableFuture<Gate> closed(String reason, Map<Integer, Claim> madeAhead, JobSnapshot job) {
        ahead.handOnUnstarted(madeAhead.values());
        return CompletableFuture.completedFuture(Gate.closed(reason, job));
    }

    /**
     * How the fire was asked for, which its ledger node says: read for a manual fire (its job parameter), known without
     * a read for a scheduled one. Null when the read failed: the fire's items must not run with another parameter than
     * the operator's, so they are left to the audit, which reads the record again.
     */
    private @Nullable FireOrigin origin(ExecutionSource source, Instant fireTime) {
        if (source != ExecutionSource.MANUAL) {
            // Told of by the schedule: a fire its upstreams record comes through the announcement, as MANUAL.
            return FireOrigin.SCHEDULED;
        }
        try {
            return manualFires.origin(fireTime);
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not read the record of the manual fire {}; the audit makes its items up: {}",
                    view.jobName(),
                    fireTime,
                    ex.toString());
            return null;
        }
    }

    /** The assignment, once an audit has looked at it: an item it moved here may still run on its old owner. */
    private CompletableFuture<Assignment> audited(Assignment assignment, Executor executor) {
        if (memory.auditedEpoch() == assignment.epoch()) {
            return CompletableFuture.completedFuture(assignment);
        }
        audits.soon();
        CompletableFuture<Void> audited = memory.whenAudited(assignment.epoch(), assignmentWait.timeout());
        // Completed by the audit, on the job's coordination thread: the planning goes on elsewhere.
        return audited.isDone()
                ? CompletableFuture.completedFuture(assignment)
                : audited.thenApplyAsync(done -> assignment, executor);
    }
}
