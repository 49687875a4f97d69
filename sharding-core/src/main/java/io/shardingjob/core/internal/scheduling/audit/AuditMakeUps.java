package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.scheduling.fire.MisfireReports;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Owed;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The make-up step of a {@link LedgerAudit}: from the fires the audit read, the missed item-fires of this instance's
 * items are made up, coalesced or skipped as the misfire policy says ({@link LedgerRules#makeUps}), and the items a run
 * here keeps busy are owed an audit when it ends. It is apart from the audit's reads and take-overs because it is the
 * one step that judges fires nobody claimed, by the policy and the schedule history, where the others judge claims
 * that exist; it writes only the skipped slots, and leaves each make-up's claim to {@link AuditWork}, where ZooKeeper
 * decides it again.
 */
final class AuditMakeUps {

    /** The audit's own logger: its decisions read as the audit's, as they did when this step was part of it. */
    private static final Logger log = LoggerFactory.getLogger(LedgerAudit.class);

    private final JobView view;
    private final ClaimWrites claims;
    private final RunMemory memory;
    private final MisfireReports misfires;

    AuditMakeUps(JobView view, ClaimWrites claims, RunMemory memory, MisfireReports misfires) {
        this.view = view;
        this.claims = claims;
        this.memory = memory;
        this.misfires = misfires;
    }

    /**
     * Adds the make-ups the misfire policy asks for to the steps, and the writes of the fires it skips.
     *
     * @param items the items of this instance's to look at
     */
    void plan(LedgerAudit.Pass audit, Set<Integer> items) {
        Set<Integer> candidates = new HashSet<>(items);
        Assignment assignment = audit.assignment;
        String me = audit.me;
        MisfirePolicy policy = policy(audit.config);
        Function<Instant, FireOrigin> originOf = audit::originOf;
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        Map<Instant, Integer> totals = new TreeMap<>();
        for (FireView view : audit.views) {
            if (audit.isLate(view.fireTime())) {
                claimed.put(view.fireTime(), view.claims().keySet());
                totals.put(view.fireTime(), view.total() > 0 ? view.total() : assignment.shardingTotalCount());
            }
        }
        // Not read, but claimed: a missed fire on either side of one is a run of its own, not coalesced across it.
        // Whole: every item of this instance's, disabled ones included (its trigger recorded those skipped).
        Set<Integer> mine = Set.copyOf(assignment.itemsOf(me));
        audit.whole.stream().filter(audit::isLate).forEach(fireTime -> claimed.put(fireTime, mine));
        // Disabled items too: their fires while they were disabled were never due, and are recorded so (their
        // fire settles); what they missed while enabled waits until they are enabled again.
        Set<Integer> disabledNow = new HashSet<>(audit.job.disabledItems());
        Set<Integer> busyHere = new HashSet<>();
        for (int busy : memory.runningItems()) {
            // An item held for this audit is busy only with the work this audit is about to give it.
            if (!audit.held.containsKey(busy) && candidates.remove(busy)) {
                busyHere.add(busy);
            }
        }
        // A busy item with fires to make up is looked at again when its run here ends (and kept for that audit,
        // see RunMemory#endRun); one with none is left free for its next fire.
        // A fire of the schedule is due only on its cron: a stale trigger's fire of the old one is not made up.
        Function<Slot, DueRule.Due> due = slot -> audit.due.judge(slot, originOf.apply(slot.fireTime()));
        // Each missed scheduled fire is remembered as one a fire found busy: nobody claimed the item in it, as read.
        MakeUpPlan owed = LedgerRules.makeUps(claimed, busyHere, policy, Instant.MAX, audit.horizon, originOf, due)
                .withoutMissedOf(disabledNow);
        Stream.concat(owed.run().stream(), owed.coalesced().keySet().stream()).forEach(slot -> {
            if (originOf.apply(slot.fireTime()).equals(FireOrigin.SCHEDULED)) {
                memory.missedByFire(slot.item(), slot.fireTime(), assignment.epoch(), audit.session);
            } else {
                memory.missedWhileBusy(slot.item());
            }
        });
        MakeUpPlan plan = LedgerRules.makeUps(claimed, candidates, policy, Instant.MAX, audit.horizon, originOf, due)
                .withoutMissedOf(disabledNow);
        if (plan.hasMissed()) {
            log.info(
                    "Job {} on {}: making up {}, coalescing {}, skipping {}",
                    view.jobName(),
                    me,
                    plan.run(),
                    plan.coalesced().keySet(),
                    plan.skipped());
            misfires.missed(plan, policy);
        }
        follow(plan, audit, totals);
    }

    /**
     * Plans the make-up of the fires that found an item busy here once its run ended, as an audit would, but on what
     * this instance knows of them rather than a read of the ledger: from the run's end to the item's next run, only the
     * end's write, the make-up's claim and its start. Only when it knows every fire the item missed ({@link
     * Owed#knowsEveryMissedFire}), each planned here (late for the audit) and the item still this instance's.
     *
     * @param ranFor the fire of the run that ended
     * @return false when only an audit's read of the ledger tells what the item missed
     */
    boolean planOwed(LedgerAudit.Pass audit, Owed owed, Instant ranFor) {
        if (!audit.runsItems
                || !audit.owned.contains(owed.item())
                || !owed.knowsEveryMissedFire(ranFor, audit.assignment.epoch(), audit.session, audit.due)
                || !owed.after(ranFor).stream().allMatch(audit::isLate)) {
            return false;
        }
        audit.views = owed.after(ranFor).stream()
                .map(fireTime -> new FireView(fireTime, Map.of()))
                .toList();
        plan(audit, Set.of(owed.item()));
        return true;
    }

    /**
     * What the plan asks for: skipped slots recorded now, coalesced ones only once the run they fold into is won (see
     * {@link AuditWork}), and each make-up a step of its item's work.
     */
    private void follow(MakeUpPlan plan, LedgerAudit.Pass audit, Map<Instant, Integer> totals) {
        Instant now = audit.now;
        Map<Instant, List<Claim>> skipped = new TreeMap<>();
        Stream.concat(plan.skipped().stream(), plan.notDue().stream())
                .forEach(slot -> skipped.computeIfAbsent(slot.fireTime(), fireTime -> new ArrayList<>())
                        .add(first(slot, audit, totals).with(ClaimState.SKIPPED, now)));
        skipped.forEach((fireTime, skips) -> audit.writes.add(claims.claimAsync(fireTime, skips)));
        Map<Slot, List<Claim>> folded = new HashMap<>();
        plan.coalesced()
                .forEach((slot, into) -> folded.computeIfAbsent(into, target -> new ArrayList<>())
                        .add(first(slot, audit, totals).with(ClaimState.COALESCED, now)));
        for (Slot slot : plan.run()) {
            audit.steps
                    .computeIfAbsent(slot.item(), item -> new ArrayList<>())
                    .add(new AuditWork.Step(
                            first(slot, audit, totals),
                            null,
                            folded.getOrDefault(slot, List.of()),
                            audit.originOf(slot.fireTime())));
        }
    }

    /**
     * A make-up's claim, or the record of a slot skipped or coalesced: {@code MANUAL} in an operator's fire, whose every
     * item was asked for and runs as that fire's own run, however late; {@code UPSTREAM} in one its upstream jobs
     * recorded; {@code MISFIRE} in a scheduled one.
     */
    private Claim first(Slot slot, LedgerAudit.Pass audit, Map<Instant, Integer> totals) {
        Assignment assignment = audit.assignment;
        FireOrigin origin = audit.originOf(slot.fireTime());
        return Claim.first(
                slot.item(),
                slot.fireTime(),
                audit.me,
                audit.session,
                origin.manual()
                        ? ExecutionSource.MANUAL
                        : origin.followsUpstream() ? ExecutionSource.UPSTREAM : ExecutionSource.MISFIRE,
                assignment.epoch(),
                totals.getOrDefault(slot.fireTime(), assignment.shardingTotalCount()),
                audit.now);
    }

    /** The policy in force: the boolean {@code misfire} off means skip, whatever the policy says. */
    static MisfirePolicy policy(JobConfiguration config) {
        return config.misfire() ? config.misfirePolicy() : MisfirePolicy.SKIP;
    }
}
