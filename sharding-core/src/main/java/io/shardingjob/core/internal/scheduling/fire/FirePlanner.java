package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule.AheadFate;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.ManualFireRecords;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.LastAudit;
import io.shardingjob.core.internal.scheduling.job.LocalFires;
import io.shardingjob.core.internal.scheduling.job.OpenClaims;
import io.shardingjob.core.internal.scheduling.job.Reservations;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which of this instance's items one fire runs, and holds their claims: those made ahead for the fire (no
 * round trip), and the others created now in one multi-operation, reserved; with failover on, those of the runs that
 * leave the queue first are created with their starts ({@link StartBatch}). Each run starts later, when it leaves the
 * item executor's queue, once its start is written (see {@link ItemRunner}). Items it cannot run are skipped with a
 * reason; the audit makes them up as the misfire policy says.
 */
public final class FirePlanner {

    private static final Logger log = LoggerFactory.getLogger(FirePlanner.class);

    private final JobView view;

    private final AuditDemand audits;

    private final AssignmentWait assignmentWait;

    /**
     * What a fire's plan uses of the ledger: the claims it creates, the claim of an earlier run it may wait on, and an
     * operator's fire's origin.
     */
    public record Ledger(ClaimWrites claims, LedgerReads reads, ManualFireRecords manualFires) {}

    private final Ledger ledger;

    private final Reservations reservedItems;

    private final LastAudit lastAudit;

    private final OpenClaims openClaims;

    private final LocalFires localFires;

    private final ClaimsAhead ahead;

    private final MisfireReports misfires;

    private final IntSupplier leavingSoon;

    /**
     * @param leavingSoon how many runs of the job are expected to leave the item executor's queue within {@link
     *     StartBatch#AHEAD} of one another ({@link ItemRunner#leavingSoon}): with failover on, the claims made at the
     *     fire for that many of its runs carry their starts
     */
    public FirePlanner(
            JobView view,
            AuditDemand audits,
            AssignmentWait assignmentWait,
            Ledger ledger,
            RunMemory memory,
            ClaimsAhead ahead,
            MisfireReports misfires,
            IntSupplier leavingSoon) {
        this.view = view;
        this.audits = audits;
        this.assignmentWait = assignmentWait;
        this.ledger = ledger;
        this.reservedItems = memory.reservations();
        this.lastAudit = memory.lastAudit();
        this.openClaims = memory.claims();
        this.localFires = memory.fires();
        this.ahead = ahead;
        this.misfires = misfires;
        this.leavingSoon = leavingSoon;
    }

    /**
     * What a fire runs here.
     *
     * @param skipReason why the fire runs nothing here at all, or null
     * @param won the claims this session holds for the fire and runs, by item
     * @param reservations the item reservations of those claims
     * @param skipped the items it does not run, each with the reason
     * @param origin how the fire was asked for: the job parameter its items run with
     */
    record Plan(
            @Nullable String skipReason,
            long epoch,
            List<Claim> won,
            Map<Integer, Reservations.Reservation> reservations,
            Map<Integer, String> skipped,
            FireOrigin origin) {

        static Plan nothing(String reason) {
            return new Plan(reason, -1, List.of(), Map.of(), Map.of(), FireOrigin.SCHEDULED);
        }
    }

    /**
     * Plans the fire and claims its items, once the assignment it runs under is known and audited. Neither wait holds
     * a thread: a job being resharded must not keep the few fire threads every job shares from the other jobs' fires.
     *
     * @param madeAhead the claims this session created ahead for the fire, by item
     * @param executor where the planning goes on after a wait: it sends requests, so never ZooKeeper's thread
     */
    CompletableFuture<Plan> plan(
            ExecutionSource source, Instant fireTime, Map<Integer, Claim> madeAhead, Executor executor) {
        if (!view.isAvailable()) {
            // Its items of this fire are made up by whoever owns them once this instance is back or gone; for this
            // instance's own audit the fire is decided (late) at once.
            localFires.planned(fireTime);
            return nothing("not connected to ZooKeeper, or not started", madeAhead);
        }
        if (view.configuration().disabled()) {
            return nothing("the job is disabled", madeAhead);
        }
        if (view.disabledInstances().contains(view.instanceId())) {
            // Also when it was the last enabled instance: with no leader left to reshard, it still owns items.
            return nothing("this instance is disabled for the job", madeAhead);
        }
        return assignmentWait
                .whenReady(executor)
                .thenCompose(assignment -> audited(assignment, executor))
                .thenApply(assignment -> {
                    FireOrigin origin = origin(source, fireTime);
                    if (origin == null) {
                        localFires.planned(fireTime);
                        audits.soon();
                        return unplanned("its record could not be read; the audit makes its items up", madeAhead);
                    }
                    if (origin.isAwaiting() || origin.isAbandoned()) {
                        return unplanned(
                                origin.isAbandoned()
                                        ? "its upstream " + origin.abandonedBy() + " did not complete as it follows it"
                                        : "it waits for its upstreams " + origin.awaiting(),
                                madeAhead);
                    }
                    return plan(origin.sourceOr(source), fireTime, madeAhead, assignment, origin);
                });
    }

    /** A fire that runs nothing here: the claims made ahead for it go to whoever runs their items now. */
    private CompletableFuture<Plan> nothing(String reason, Map<Integer, Claim> madeAhead) {
        return CompletableFuture.completedFuture(unplanned(reason, madeAhead));
    }

    private Plan unplanned(String reason, Map<Integer, Claim> madeAhead) {
        ahead.verdicts(view.assignment()).handOnUnstarted(madeAhead.values());
        return Plan.nothing(reason);
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
            return ledger.manualFires().origin(fireTime);
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
        if (lastAudit.auditedEpoch() == assignment.epoch()) {
            return CompletableFuture.completedFuture(assignment);
        }
        audits.soon();
        CompletableFuture<Void> audited = lastAudit.whenAudited(assignment.epoch(), assignmentWait.timeout());
        // Completed by the audit, on the job's coordination thread: the planning goes on elsewhere.
        return audited.isDone()
                ? CompletableFuture.completedFuture(assignment)
                : audited.thenApplyAsync(done -> assignment, executor);
    }

    private Plan plan(
            ExecutionSource source,
            Instant fireTime,
            Map<Integer, Claim> madeAhead,
            Assignment assignment,
            FireOrigin origin) {
        String me = view.instanceId();
        long session = view.sessionId();
        Instant now = view.now();
        Set<Integer> disabled = new HashSet<>(view.disabledItems());
        Map<Integer, String> skipped = new TreeMap<>();
        Map<Integer, Reservations.Reservation> reservations = new TreeMap<>();
        List<Claim> won = new ArrayList<>();
        Map<AheadFate, List<Claim>> handedOn = new EnumMap<>(AheadFate.class);
        List<Claim> wanted = new ArrayList<>();
        // Items still running from an earlier fire, here or elsewhere: this fire overran into them.
        Map<Integer, String> overran = new TreeMap<>();
        ClaimsAhead.Verdicts verdicts = ahead.verdicts(assignment);
        for (Claim claim : madeAhead.values()) {
            int item = claim.item();
            Reservations.Reservation reservation =
                    lastAudit.mayStart(item, assignment.epoch(), ledger.reads()::stillRuns)
                            ? reservedItems.reserve(item)
                            : null;
            AheadFate fate = verdicts.atFire(claim, reservation != null);
            if (fate == AheadFate.RUN) {
                reservations.put(item, reservation);
                won.add(claim);
                continue;
            }
            if (reservation != null) {
                reservedItems.finish(item, reservation);
            } else if (fate == AheadFate.AUDIT && reservedItems.runningItems().contains(item)) {
                reservedItems.missedWhileBusy(item);
                overran.put(item, "still running here from an earlier fire; runs for this fire when it ends");
            }
            handedOn.computeIfAbsent(fate, any -> new ArrayList<>()).add(claim);
            skipped.put(
                    item,
                    switch (fate) {
                        case SKIP -> "disabled";
                        case RELEASE -> "no longer this instance's; released to its owner";
                        default -> "claimed ahead but not startable now; this instance's audit runs it";
                    });
        }
        // The runs that leave the queue first have their starts written with their claims, as a run leaving first would
        // write them ahead of those behind it (StartBatch): with failover on only. Claims made ahead are among them.
        int withStarts =
                StartBatch.writesAhead(view.configuration().failover()) ? leavingSoon.getAsInt() - won.size() : 0;
        for (int item : assignment.itemsOf(me)) {
            if (madeAhead.containsKey(item)) {
                continue;
            }
            Claim claim = Claim.first(
                    item, fireTime, me, session, source, assignment.epoch(), assignment.shardingTotalCount(), now);
            if (disabled.contains(item)) {
                // Recorded, so that the fire settles without waiting for an item that will not run.
                wanted.add(claim.with(ClaimState.SKIPPED, now));
                skipped.put(item, "disabled");
                continue;
            }
            if (!lastAudit.mayStart(item, assignment.epoch(), ledger.reads()::stillRuns)) {
                // Its audit makes this fire up once the other instance's run of the item has ended.
                skipped.put(item, "running on another instance for an earlier fire; made up when it ends");
                if (lastAudit.elsewhereItems().contains(item)) {
                    // Not when only the audit of a new assignment is still owed: then nothing overran.
                    overran.put(item, skipped.get(item));
                }
                continue;
            }
            Reservations.Reservation reservation = reservedItems.reserve(item);
            if (reservation == null) {
                reservedItems.missedWhileBusy(item);
                skipped.put(item, "still running; misfired, made up when it ends as the misfire policy says");
                overran.put(
                        item,
                        "still running here from an earlier fire; made up when it ends as the misfire policy says");
                continue;
            }
            reservations.put(item, reservation);
            wanted.add(withStarts-- > 0 ? claim.startedAheadAt(now) : claim);
        }
        won.addAll(claim(fireTime, wanted, reservations, skipped, session, versionOf(assignment)));
        handedOn.forEach((fate, claims) -> ahead.handOn(claims, fate));
        if (!overran.isEmpty()) {
            // Before the fire counts as planned: the audit that makes these items up must find them reported. An
            // operator's fire is no fire that came due: it is remembered, not reported.
            misfires.overran(fireTime, overran, source != ExecutionSource.MANUAL);
        }
        localFires.planned(fireTime);
        if (view.assignment().epoch() != assignment.epoch()) {
            // A reshard landed while this fire was planned: an item it gave this instance may have no claim in this
            // fire (its old owner planned with the new assignment), and this instance's audit makes it up now.
            audits.soon();
        } else if (won.stream().map(Claim::item).collect(Collectors.toSet()).containsAll(assignment.itemsOf(me))) {
            localFires.whole().claimed(fireTime, assignment.epoch(), session);
        }
        won.sort((left, right) -> Integer.compare(left.item(), right.item()));
        return new Plan(null, assignment.epoch(), won, reservations, skipped, origin);
    }

    /**
     * The version of the assignment node the fire was planned under, which the claims created with their starts are
     * checked against: known when the cache holds that very assignment. A leader's own, just written, may not be there
     * yet: its claims are then created reserved, and each run's start write carries the check.
     */
    private int versionOf(Assignment planned) {
        ShardingService.Versioned cached = view.versionedAssignment();
        return cached.assignment().equals(planned) ? cached.version() : -1;
    }

    /**
     * Creates the claims; the items whose claim another run holds are released here. A claim that names this very
     * session was written by an earlier attempt of ours whose answer was lost, or made ahead in a request answered
     * after the fire came: it is ours.
     */
    private List<Claim> claim(
            Instant fireTime,
            List<Claim> wanted,
            Map<Integer, Reservations.Reservation> reservations,
            Map<Integer, String> skipped,
            long session,
            int assignmentVersion) {
        if (wanted.isEmpty()) {
            return List.of();
        }
        ClaimWrites.Claimed claimed;
        try {
            claimed = ledger.claims().claim(fireTime, wanted, assignmentVersion);
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not claim items {} of the fire at {}; the audit makes them up: {}",
                    view.jobName(),
                    wanted.stream().map(Claim::item).toList(),
                    fireTime,
                    ex.toString());
            wanted.forEach(claim -> {
                // A claim made ahead for this fire is the audit's now, as any claim of this session it does not run.
                openClaims.settled(claim);
                Reservations.Reservation reservation = reservations.remove(claim.item());
                if (reservation != null) {
                    reservedItems.finish(claim.item(), reservation);
                    skipped.put(claim.item(), "could not be claimed");
                }
            });
            audits.soon();
            return List.of();
        }
        List<Claim> won = new ArrayList<>();
        claimed.won().values().forEach(claim -> {
            // Not those created skipped (disabled items).
            if (claim.state().isHeld()) {
                won.add(claim);
            }
        });
        boolean openElsewhere = false;
        for (Map.Entry<Integer, Claim> lost : claimed.lost().entrySet()) {
            int item = lost.getKey();
            Claim other = lost.getValue();
            Reservations.Reservation reservation = reservations.get(item);
            if (reservation == null) {
                continue;
            }
            if (other.sessionId() == session && other.state().isHeld()) {
                won.add(other);
            } else {
                reservations.remove(item);
                openClaims.settled(other);
                reservedItems.finish(item, reservation);
                skipped.put(item, "claimed by " + other.instanceId() + " (" + other.state() + ")");
                openElsewhere |= other.state().isOpen();
            }
        }
        if (openElsewhere) {
            // Its owner gave the item up, or left it (it had claimed it ahead before the item moved here, or died): the
            // audit takes it over once it is sure.
            audits.soon();
        }
        won.forEach(openClaims::claimed);
        return won;
    }
}
