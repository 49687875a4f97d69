package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.AssignmentGuard;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule.AheadFate;
import io.shardingjob.core.internal.ledger.FireNodes;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of this instance's items one fire runs, once {@link FirePlanner} let it be planned, and their claims: those
 * made ahead for the fire, judged again now (no round trip), and the others created in one multi-operation, reserved;
 * with failover on, those of the runs that leave the queue first are created with their starts ({@link StartBatch}).
 * An item busy here or elsewhere is skipped with a reason, reported as overrun, and made up by the audit.
 */
public final class FireClaims {

    private static final Logger log = LoggerFactory.getLogger(FireClaims.class);

    /** What a fire's claims use of the ledger: the claims it creates, and the claim of an earlier run it may wait on. */
    public record Ledger(ClaimWrites claims, LedgerReads reads) {}

    private final JobView view;

    /** This instance's id. */
    private final String me;

    private final AuditDemand audits;
    private final Ledger ledger;
    private final ClaimsAhead ahead;
    private final MisfireReports misfires;
    private final IntSupplier leavingSoon;
    private final RunMemory memory;

    /**
     * @param leavingSoon how many runs of the job are expected to leave the item executor's queue within {@link
     *     StartBatch#AHEAD} of one another ({@link ItemRunner#leavingSoon}): with failover on, the claims made at the
     *     fire for that many of its runs carry their starts
     */
    public FireClaims(
            JobView view,
            AuditDemand audits,
            Ledger ledger,
            RunMemory memory,
            ClaimsAhead ahead,
            MisfireReports misfires,
            IntSupplier leavingSoon) {
        this.memory = memory;
        this.view = view;
        this.me = view.instanceId();
        this.audits = audits;
        this.ledger = ledger;
        this.ahead = ahead;
        this.misfires = misfires;
        this.leavingSoon = leavingSoon;
    }

    /** Plans the fire under the audited assignment its gate let it through on, on the job as the gate saw it. */
    FirePlanner.Plan plan(FirePlanner.Gate gate, Instant fireTime) {
        Assignment assignment = gate.assignment();
        if (assignment == null) {
            return FirePlanner.Plan.nothing(gate.skipReason(), gate.job());
        }
        ExecutionSource source = gate.runAs();
        Map<Integer, Claim> madeAhead = gate.madeAhead();
        Draft draft = new Draft(gate.job(), gate.at());
        long session = draft.job.sessionId();
        takeMadeAhead(draft, madeAhead.values(), assignment);
        // The runs that leave the queue first have their starts written with their claims, as a run leaving first would
        // write them ahead of those behind it (StartBatch): with failover on only. Claims made ahead are among them.
        int withStarts = StartBatch.writesAhead(draft.job.configuration().failover())
                ? leavingSoon.getAsInt() - draft.won.size()
                : 0;
        List<Claim> wanted = new ArrayList<>();
        for (int item : assignment.itemsOf(me)) {
            if (!madeAhead.containsKey(item)) {
                Claim claim = Claim.first(
                        item,
                        fireTime,
                        me,
                        session,
                        source,
                        assignment.epoch(),
                        assignment.shardingTotalCount(),
                        draft.now);
                Claim asked = ask(draft, claim, assignment, withStarts > 0);
                if (asked != null) {
                    wanted.add(asked);
                    withStarts -= asked.state() == ClaimState.RUNNING ? 1 : 0;
                }
            }
        }
        draft.won.addAll(claim(fireTime, wanted, draft, versionOf(assignment, draft.job)));
        draft.handedOn.forEach((fate, claims) -> ahead.handOn(claims, fate));
        if (!draft.overran.isEmpty()) {
            // Before the fire counts as planned: the audit that makes these items up must find them reported. An
            // operator's fire is no fire that came due: it is remembered, not reported.
            misfires.overran(fireTime, draft.overran, source != ExecutionSource.MANUAL);
        }
        memory.planned(fireTime);
        if (view.assignment().epoch() != assignment.epoch()) {
            // A reshard landed while this fire was planned: an item it gave this instance may have no claim in this
            // fire (its old owner planned with the new assignment), and this instance's audit makes it up now.
            audits.soon();
        } else if (draft.won.stream()
                .map(Claim::item)
                .collect(Collectors.toSet())
                .containsAll(assignment.itemsOf(me))) {
            memory.claimedWhole(fireTime, assignment.epoch(), session);
        }
        draft.won.sort(Comparator.comparingInt(Claim::item));
        return new FirePlanner.Plan(
                null, assignment.epoch(), draft.won, draft.reservations, draft.skipped, gate.origin(), draft.job);
    }

    /** Judges each claim made ahead for the fire again, now that it came: run, skipped, or handed on. */
    private void takeMadeAhead(Draft draft, Collection<Claim> madeAhead, Assignment assignment) {
        ClaimsAhead.Verdicts verdicts = ahead.verdicts(draft.job, assignment);
        for (Claim claim : madeAhead) {
            int item = claim.item();
            Reservation reservation =
                    memory.mayStart(item, assignment.epoch(), ledger.reads()::stillRuns) ? memory.reserve(item) : null;
            AheadFate fate = verdicts.atFire(claim, reservation != null);
            if (fate == AheadFate.RUN) {
                draft.reservations.put(item, reservation);
                draft.won.add(claim);
                continue;
            }
            if (reservation != null) {
                memory.free(item, reservation);
            } else if (fate == AheadFate.AUDIT && memory.runningItems().contains(item)) {
                memory.missedWhileBusy(item);
                draft.overran.put(item, "still running here from an earlier fire; runs for this fire when it ends");
            }
            draft.handedOn.computeIfAbsent(fate, any -> new ArrayList<>()).add(claim);
            draft.skipped.put(
                    item,
                    switch (fate) {
                        case SKIP -> "disabled";
                        case RELEASE -> "no longer this instance's; released to its owner";
                        default -> "claimed ahead but not startable now; this instance's audit runs it";
                    });
        }
    }

    /**
     * The claim to create for one owned item, reserved for its run (with its start when {@code withStart}), or skipped
     * (disabled), or null when the item does not run for this fire: busy here or elsewhere, the audit makes it up.
     */
    private @Nullable Claim ask(Draft draft, Claim claim, Assignment assignment, boolean withStart) {
        int item = claim.item();
        if (draft.job.disabledItems().contains(item)) {
            // Recorded, so that the fire settles without waiting for an item that will not run.
            draft.skipped.put(item, "disabled");
            return claim.with(ClaimState.SKIPPED, draft.now);
        }
        if (!memory.mayStart(item, assignment.epoch(), ledger.reads()::stillRuns)) {
            // Its audit makes this fire up once the other instance's run of the item has ended.
            draft.skipped.put(item, "running on another instance for an earlier fire; made up when it ends");
            if (memory.elsewhereItems().contains(item)) {
                // Not when only the audit of a new assignment is still owed: then nothing overran.
                draft.overran.put(item, draft.skipped.get(item));
            }
            return null;
        }
        Reservation reservation = memory.reserve(item);
        if (reservation == null) {
            memory.missedBy(claim);
            draft.skipped.put(item, "still running; misfired, made up when it ends as the misfire policy says");
            draft.overran.put(
                    item, "still running here from an earlier fire; made up when it ends as the misfire policy says");
            return null;
        }
        draft.reservations.put(item, reservation);
        return withStart ? claim.startedAheadAt(draft.now) : claim;
    }

    /**
     * The version of the assignment node the fire was planned under, which the claims created with their starts are
     * checked against: known when the cache held that very assignment when the plan began. A leader's own, just
     * written, may not be there yet: its claims are then created reserved, and each run's start write carries the check.
     */
    private static int versionOf(Assignment planned, JobSnapshot job) {
        return job.assignment().assignment().equals(planned) ? job.assignment().version() : -1;
    }

    /** The claim write failed: nothing of the fire runs here now, and the audit makes its items up. */
    private void unclaimed(Instant fireTime, List<Claim> wanted, Draft draft, Exception failure) {
        log.warn(
                "Job {}: could not claim items {} of the fire at {}; the audit makes them up: {}",
                view.jobName(),
                wanted.stream().map(Claim::item).toList(),
                fireTime,
                failure.toString());
        wanted.forEach(claim -> {
            // A claim made ahead for this fire is the audit's now, as any claim of this session it does not run.
            memory.settled(claim);
            Reservation reservation = draft.reservations.remove(claim.item());
            if (reservation != null) {
                memory.free(claim.item(), reservation);
                draft.skipped.put(claim.item(), "could not be claimed");
            }
        });
        audits.soon();
    }

    /**
     * Creates the claims; the items whose claim another run holds are released here. A claim that names this very
     * session was written by an earlier attempt of ours whose answer was lost, or made ahead in a request answered
     * after the fire came: it is ours.
     */
    private List<Claim> claim(Instant fireTime, List<Claim> wanted, Draft draft, int assignmentVersion) {
        if (wanted.isEmpty()) {
            return List.of();
        }
        ClaimWrites.Claimed claimed;
        try {
            // Created with their starts only under the assignment they were decided under; else reserved.
            AssignmentGuard guard = AssignmentGuard.ofCreates(assignmentVersion);
            claimed = ClientRequests.await(
                            ledger.claims().commitAsync(List.of(), fireTime, wanted, FireNodes.AS_NEEDED, guard))
                    .claimed();
        } catch (Exception ex) {
            unclaimed(fireTime, wanted, draft, ex);
            return List.of();
        }
        // Not those created skipped (disabled items).
        List<Claim> won = new ArrayList<>(claimed.won().values().stream()
                .filter(claim -> claim.state().isHeld())
                .toList());
        boolean openElsewhere = false;
        for (Map.Entry<Integer, Claim> lost : claimed.lost().entrySet()) {
            int item = lost.getKey();
            Claim other = lost.getValue();
            Reservation reservation = draft.reservations.get(item);
            if (reservation != null
                    && other.sessionId() == draft.job.sessionId()
                    && other.state().isHeld()) {
                won.add(other);
            } else if (reservation != null) {
                draft.reservations.remove(item);
                memory.settled(other);
                memory.free(item, reservation);
                draft.skipped.put(item, "claimed by " + other.instanceId() + " (" + other.state() + ")");
                openElsewhere |= other.state().isOpen();
            }
        }
        if (openElsewhere) {
            // Its owner gave the item up, or left it (it had claimed it ahead before the item moved here, or died): the
            // audit takes it over once it is sure.
            audits.soon();
        }
        won.forEach(memory::claimed);
        return won;
    }

    /** A fire's plan while it is made, on the job and the time read once for all its claims: what it runs and skips. */
    private static final class Draft {

        final JobSnapshot job;
        final Instant now;
        final Map<Integer, String> skipped = new TreeMap<>();
        final Map<Integer, Reservation> reservations = new TreeMap<>();
        final List<Claim> won = new ArrayList<>();
        final Map<AheadFate, List<Claim>> handedOn = new EnumMap<>(AheadFate.class);

        /** Items still running from an earlier fire, here or elsewhere: this fire overran into them. */
        final Map<Integer, String> overran = new TreeMap<>();

        Draft(JobSnapshot job, Instant now) {
            this.job = job;
            this.now = now;
        }
    }
}
