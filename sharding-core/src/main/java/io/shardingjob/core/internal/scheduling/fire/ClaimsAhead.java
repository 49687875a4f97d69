package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule.AheadFate;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.FireNodes;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.LastAudit;
import io.shardingjob.core.internal.scheduling.job.LocalFires;
import io.shardingjob.core.internal.scheduling.job.OpenClaims;
import io.shardingjob.core.internal.scheduling.job.Reservations;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims of the schedule's next fire, created in the request that records the last ends of a fire on this instance, so
 * that at the next fire instant no ZooKeeper round trip stands between the trigger and its items. With {@code failover}
 * on they are made with their starts written ({@link StartBatch#writesAhead}), only under the assignment they were
 * decided under ({@link io.shardingjob.core.internal.ledger.AssignmentGuard}), and their runs begin at the fire with
 * no write at all while the session was proven lately ({@link io.shardingjob.core.internal.ledger.RunStart#decideWritten});
 * without, each run writes its start at the fire. They are ordinary claims of this session (running, as far as every
 * other instance can tell, once their fire is due), held here until their fire's trigger takes them. What changed meanwhile is judged by one rule, {@link ClaimsAheadRule#atFire}, both at
 * the fire instant and at each audit before it: an item that moved away is released to its new owner, a disabled one
 * skipped, and a claim whose fire never came (a changed schedule) is left to the audit, which runs it late as this
 * session's own.
 */
public final class ClaimsAhead implements GroupCommit.Ahead {

    private static final Logger log = LoggerFactory.getLogger(ClaimsAhead.class);

    /**
     * How long after its fire time a claim made ahead waits for its trigger before the audit runs it: a safety net for
     * a trigger that never comes (the schedule's own changes are judged at once, see {@link #review}).
     */
    static final Duration NEVER_FIRED_AFTER = Duration.ofMinutes(1);

    private final JobView view;

    private final ClaimWrites claims;

    private final Reservations reservedItems;

    private final LastAudit lastAudit;

    private final OpenClaims openClaims;

    private final LocalFires localFires;

    private final FireSchedule schedule;

    private final DueFires dueFires;

    public ClaimsAhead(JobView view, ClaimWrites claims, RunMemory memory, FireSchedule schedule, DueFires dueFires) {
        this.view = view;
        this.claims = claims;
        this.reservedItems = memory.reservations();
        this.lastAudit = memory.lastAudit();
        this.openClaims = memory.claims();
        this.localFires = memory.fires();
        this.schedule = schedule;
        this.dueFires = dueFires;
    }

    @Override
    public Next claimsAfter(List<Claim> lastEnds, List<Claim> ends) {
        if (schedule == FireSchedule.NONE || !view.isAvailable()) {
            return Next.NONE;
        }
        JobConfiguration config = view.configuration();
        String me = view.instanceId();
        ShardingService.Versioned versioned = view.versionedAssignment();
        Assignment assignment = versioned.assignment();
        // A job on demand has no next fire to claim ahead: its fires come when triggered.
        if (config.disabled()
                || config.isOnDemand()
                || view.disabledInstances().contains(me)
                || lastAudit.auditedEpoch() != assignment.epoch()) {
            return Next.NONE;
        }
        Instant ended = lastEnds.stream()
                .map(Claim::fireTime)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        Instant next = schedule.nextFireAfter(config, ended);
        // A next fire already past is the trigger's (it may wait in the queue of fires), or the audit's if missed.
        if (next == null || !next.isAfter(view.now())) {
            return Next.NONE;
        }
        Instant fireTime = FireSchedule.fireTimeOf(next);
        Set<Integer> unavailable = new HashSet<>(view.disabledItems());
        unavailable.addAll(lastAudit.elsewhereItems());
        unavailable.addAll(openClaims.aheadItems(fireTime));
        Set<Integer> busy = new HashSet<>(reservedItems.runningItems());
        ends.forEach(end -> busy.remove(end.item()));
        unavailable.addAll(busy);
        long session = view.sessionId();
        boolean started = StartBatch.writesAhead(config.failover());
        List<Claim> claims =
                ClaimsAheadRule.toClaimAhead(assignment.itemsOf(me), unavailable, localFires.hasSeen(fireTime)).stream()
                        .map(item -> Claim.first(
                                item,
                                fireTime,
                                me,
                                session,
                                ExecutionSource.NORMAL,
                                assignment.epoch(),
                                assignment.shardingTotalCount(),
                                fireTime))
                        .map(claim -> started ? claim.startedAheadAt(fireTime) : claim)
                        .toList();
        // The server may create them a while before the answer is handled here, past their fire: an audit reading them
        // meanwhile must see them as this session's business, not as stranded.
        openClaims.requestingAhead(claims);
        return new Next(claims, fireNodes(config, assignment, me, fireTime), versioned.version());
    }

    /**
     * The owner of the job's lowest item creates the node of the fire after the next one, a period ahead of the claims
     * that go in it; the others take the next fire's node to exist (see {@link FireNodes}).
     */
    private FireNodes fireNodes(JobConfiguration config, Assignment assignment, String me, Instant next) {
        boolean creator = assignment.itemsByInstance().entrySet().stream()
                .filter(owner -> !owner.getValue().isEmpty())
                .min(Comparator.comparing(owner -> Collections.min(owner.getValue())))
                .map(owner -> owner.getKey().equals(me))
                .orElse(false);
        if (!creator) {
            return new FireNodes(true, null);
        }
        Instant after = schedule.nextFireAfter(config, next);
        return new FireNodes(false, after == null ? null : FireSchedule.fireTimeOf(after));
    }

    @Override
    public void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed) {
        if (claimed != null) {
            // When the fire came meanwhile, its trigger found these in the ledger as this session's, or left them to
            // the audit: either way they are not kept here.
            openClaims.claimedAhead(fireTime, claimed.won().values());
        }
        openClaims.answeredAhead(requested);
    }

    /** The rule's view of this instance now, read once for all the claims a fire or an audit looks at. */
    Verdicts verdicts(Assignment assignment) {
        String me = view.instanceId();
        return new Verdicts(
                view.sessionId(),
                view.isAvailable(),
                view.configuration().disabled(),
                view.disabledInstances().contains(me) ? Set.of() : Set.copyOf(assignment.itemsOf(me)),
                Set.copyOf(view.disabledItems()),
                dueFires.rule(),
                view.now());
    }

    /** What becomes of claims made ahead, by {@link ClaimsAheadRule#atFire}, the rule every look at them uses. */
    final class Verdicts {

        private final long sessionId;

        private final boolean connected;

        private final boolean jobDisabled;

        private final Set<Integer> owned;

        private final Set<Integer> disabledItems;

        private final DueRule due;

        private final Instant now;

        private Verdicts(
                long sessionId,
                boolean connected,
                boolean jobDisabled,
                Set<Integer> owned,
                Set<Integer> disabledItems,
                DueRule due,
                Instant now) {
            this.sessionId = sessionId;
            this.connected = connected;
            this.jobDisabled = jobDisabled;
            this.owned = owned;
            this.disabledItems = disabledItems;
            this.due = due;
            this.now = now;
        }

        /**
         * What the fire does with a claim made ahead for it.
         *
         * @param startable whether the item is neither busy here nor run by another live session
         */
        AheadFate atFire(Claim claim, boolean startable) {
            return ClaimsAheadRule.atFire(
                    claim, sessionId, connected, jobDisabled, owned, disabledItems, startable, dueOf(claim));
        }

        /**
         * Whether the claim's item-fire is due ({@link DueRule#judge}): by the schedule history, and for a fire to come
         * by the job's state now too, which a change reaches a moment before its entry in the history does.
         */
        private DueRule.Due dueOf(Claim claim) {
            boolean offBeforeItsFire =
                    claim.fireTime().isAfter(now) && (jobDisabled || disabledItems.contains(claim.item()));
            // Made ahead of the schedule's fires only.
            return offBeforeItsFire ? DueRule.Due.NO : due.judge(claim.fireTime(), claim.item(), FireOrigin.SCHEDULED);
        }

        /** Hands on claims made ahead for a fire that runs nothing here, as the rule says for items it cannot start. */
        void handOnUnstarted(Collection<Claim> claims) {
            Map<AheadFate, List<Claim>> byFate = new EnumMap<>(AheadFate.class);
            claims.forEach(claim -> byFate.computeIfAbsent(atFire(claim, false), any -> new ArrayList<>())
                    .add(claim));
            byFate.forEach((fate, ofFate) -> handOn(ofFate, fate));
        }
    }

    /**
     * An audit's look at the claims held for fires to come: those the rule no longer lets run are handed on now rather
     * than at their fire, and those whose trigger never came are left to the audit.
     */
    public void review(Instant now) {
        // A late trigger (fires queue up under load) still takes its claims: only one that never came leaves them here.
        Instant lateBefore = now.minus(NEVER_FIRED_AFTER);
        List<Claim> neverFired = openClaims.takeAhead(claim -> claim.fireTime().isBefore(lateBefore));
        if (!neverFired.isEmpty()) {
            log.info(
                    "Job {}: no fire came for the claims made ahead {}; they run as missed",
                    view.jobName(),
                    neverFired);
            neverFired.forEach(openClaims::settled);
        }
        Verdicts verdicts = verdicts(view.assignment());
        JobConfiguration config = view.configuration();
        Map<Instant, Boolean> scheduled = new HashMap<>();
        Function<Claim, AheadFate> fate = claim -> {
            // Before the fire, only what changed since the claim was made counts: the session is proven at the fire.
            AheadFate current = verdicts.atFire(claim, true);
            boolean stillAFire = scheduled.computeIfAbsent(claim.fireTime(), fireTime -> isScheduled(config, fireTime));
            return current == AheadFate.RUN && !stillAFire ? AheadFate.SKIP : current;
        };
        Map<AheadFate, List<Claim>> stale = new EnumMap<>(AheadFate.class);
        openClaims
                .takeAhead(claim -> fate.apply(claim) != AheadFate.RUN)
                .forEach(claim -> stale.computeIfAbsent(fate.apply(claim), any -> new ArrayList<>())
                        .add(claim));
        stale.forEach((each, claims) -> handOn(claims, each));
    }

    /** Gives every claim made ahead back: this instance stops. */
    public void releaseAll() {
        handOn(openClaims.takeAhead(claim -> true), AheadFate.RELEASE);
    }

    /**
     * Hands claims made ahead on as the rule said: written as skipped or released, or left to the audit. The write is
     * sent, not waited for (a service stopping thousands of jobs must not wait a round trip for each); the claims are
     * no longer this instance's in flight once it was answered. Should it not land, they are still this session's in
     * the ledger, which its audit runs or releases, or a dead session's, taken over at their fire.
     */
    void handOn(Collection<Claim> claims, AheadFate fate) {
        if (claims.isEmpty()) {
            return;
        }
        if (fate != AheadFate.SKIP && fate != AheadFate.RELEASE) {
            claims.forEach(openClaims::settled);
            return;
        }
        ClaimState state = fate == AheadFate.SKIP ? ClaimState.SKIPPED : ClaimState.HANDED_ON;
        Instant now = view.now();
        this.claims
                .commitAsync(
                        claims.stream().map(claim -> claim.with(state, now)).toList(), Instant.EPOCH, List.of())
                .whenComplete((committed, failure) -> {
                    if (failure != null) {
                        log.warn(
                                "Job {}: could not record the claims made ahead {} as {}: {}",
                                view.jobName(),
                                claims,
                                state,
                                failure.toString());
                    } else if (!committed.written().lost().isEmpty()) {
                        log.warn(
                                "Job {}: claims made ahead {} were taken over before they could be {}",
                                view.jobName(),
                                committed.written().lost(),
                                state);
                    }
                    claims.forEach(openClaims::settled);
                });
    }

    private boolean isScheduled(JobConfiguration config, Instant fireTime) {
        return !config.isOnDemand() && schedule.firesAt(config, fireTime);
    }
}
