package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimState;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance's audit of the ledger for the items it owns now: it runs this session's own claims it lost track of,
 * takes over the orphans of its items (open claims whose session is gone), and makes up the fires of its items that
 * nobody claimed, as the misfire policy says. It reads only the fires after the ledger's watermark (a few in steady
 * state) and runs when something may have left work behind: a new assignment, a reconnect, an item that ended after a
 * fire found it busy, and periodically.
 *
 * <p>Every action is decided again by ZooKeeper: a make-up is a claim that fails if the item-fire was claimed since the
 * read, a take-over a versioned write that fails if the orphan changed. The work of one item runs as one task, oldest
 * fire first, so the make-ups of an item never overlap each other or a fire of the item here.
 */
final class LedgerAudit {

    private static final Logger log = LoggerFactory.getLogger(LedgerAudit.class);

    private static final Duration LATENESS = LedgerRules.LATENESS;

    private final JobRuntime runtime;

    private final FireLedger ledger;

    private final FireRunner runner;

    private final LocalExecutions local;

    private final ClaimsAhead ahead;

    private final @Nullable ItemExecutor job;

    private final Executor executor;

    private final Duration catchUpHorizon;

    private final DueFires dueFires;

    LedgerAudit(
            JobRuntime runtime,
            FireLedger ledger,
            FireRunner runner,
            LocalExecutions local,
            ClaimsAhead ahead,
            @Nullable ItemExecutor job,
            Executor executor,
            Duration catchUpHorizon,
            DueFires dueFires) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.runner = runner;
        this.local = local;
        this.ahead = ahead;
        this.job = job;
        this.executor = executor;
        this.catchUpHorizon = catchUpHorizon;
        this.dueFires = dueFires;
    }

    /**
     * One audit; runs on the job's serial executor.
     *
     * @param read the ledger's overview as read a moment ago on this thread (by the keeper), or null to read it now
     */
    void run(FireLedger.@Nullable Overview read) throws Exception {
        // Owed ends first, as soon as the connection is back and before this instance is registered again: until they
        // are written, another instance may take those claims over and run finished items again.
        if (!runtime.isStarted() || !runner.writeOwed()) {
            runtime.auditLater(LATENESS);
            return;
        }
        if (!runtime.isAvailable()) {
            return;
        }
        JobConfiguration config = runtime.configuration();
        String me = runtime.instanceId();
        // Without a job (or disabled) this instance runs nothing, but it still releases what its earlier sessions left.
        boolean runsItems = job != null
                && !config.disabled()
                && !runtime.disabledInstances().contains(me);
        long session = runtime.sessionId();
        Instant now = runtime.now();
        FireLedger.Overview overview = read != null ? read : ledger.overview();
        Instant watermark = overview.watermark();
        local.forgetFiresThrough(watermark);
        Instant horizon = now.minus(catchUpHorizon);
        ahead.review(now);
        // Fires to come hold only claims made ahead, which nobody runs, takes over or releases before their fire.
        List<Instant> recorded = overview.fires().stream()
                .filter(fireTime -> !fireTime.isAfter(now))
                .toList();
        Set<Instant> fires = new java.util.TreeSet<>();
        recorded.stream().filter(fireTime -> fireTime.isAfter(watermark)).forEach(fires::add);
        // Due, but nobody claimed anything in them: recorded so that every owner's audit sees them.
        // The schedule's missed fires are the keeper's to record (before it moves the watermark past them): here a
        // scheduled fire may still wait in this instance's own queue of fires.
        fires.addAll(dueFires.recordLate(watermark, recorded, fireTime -> isLate(fireTime, now), watermark, horizon));
        Assignment assignment = runtime.assignment();
        // A fire whose trigger here won every item this instance owns under this assignment holds nothing for this
        // audit: it is not read, nor looked at again (with a thousand items a fire, most of an audit's reads).
        Set<Instant> whole = fires.stream()
                .filter(fireTime -> local.wholeFires().isWhole(fireTime, assignment.epoch(), session))
                .collect(java.util.stream.Collectors.toSet());
        fires.removeAll(whole);
        // A fire this instance saw that is not late yet is looked at again once it is, not at the next periodic audit.
        Stream.concat(fires.stream(), local.seenFires().stream())
                .filter(fireTime -> fireTime.isAfter(watermark)
                        && !isLate(fireTime, now)
                        && !local.wholeFires().isWhole(fireTime, assignment.epoch(), session))
                .min(Instant::compareTo)
                .ifPresent(next -> runtime.auditLater(Duration.between(now, next.plus(LATENESS))));
        Set<Integer> owned = new HashSet<>(assignment.itemsOf(me));
        owned.removeAll(runtime.disabledItems());
        if (fires.isEmpty()) {
            local.audited(assignment.epoch(), owned, Map.of());
            return;
        }
        List<FireView> views = ledger.read(fires);
        List<Claim> claims = new ArrayList<>();
        views.forEach(view -> claims.addAll(view.claims().values()));
        Set<Slot> known = new HashSet<>(local.inFlight());
        local.unwrittenSlots().forEach(known::add);
        for (Claim lost : LedgerRules.previousSessionOwn(claims, me, session, known)) {
            // Left by an earlier session of this instance, unfinished as far as this process knows: the owner of the
            // item takes it over once it is released. Nobody else does while this instance is registered.
            log.info(
                    "Job {} on {}: releasing item {} of the fire at {}, left by an earlier session",
                    runtime.jobName(),
                    me,
                    lost.item(),
                    lost.fireTime());
            ledger.takeOver(lost, lost.with(ClaimState.RELEASED, now));
        }
        boolean foreignOpenClaim = claims.stream()
                .anyMatch(claim -> owned.contains(claim.item())
                        && claim.state().isOpen()
                        && (claim.sessionId() != session || claim.state() == ClaimState.RELEASED));
        Map<String, Long> live = foreignOpenClaim ? ledger.liveInstances() : Map.of();
        Map<Integer, Claim> runs = LedgerRules.runsElsewhere(claims, Set.copyOf(live.values()), session, owned);
        Set<Integer> elsewhere = runs.keySet();
        local.audited(assignment.epoch(), owned, runs);
        if (!elsewhere.isEmpty()) {
            // Not watched: looked at again shortly, until the other instance's run has ended.
            runtime.auditLater(Duration.ofSeconds(1));
        }
        if (!runsItems) {
            return;
        }
        Map<Integer, List<Step>> work = new TreeMap<>();

        for (Claim own : LedgerRules.strandedOwn(claims, session, local.inFlight())) {
            // One item never runs on two instances at once: a claim of its own waits for another session's run too.
            if (!local.isUnwritten(new Slot(own.item(), own.fireTime())) && !elsewhere.contains(own.item())) {
                work.computeIfAbsent(own.item(), item -> new ArrayList<>()).add(new Step(own, null, List.of()));
            }
        }
        Duration undecided = runtime.absentOwnersUndecidedFor(now);
        if (!undecided.isZero()) {
            // Looked at again once owners that are still reconnecting had their time to register again.
            runtime.auditLater(undecided);
        }
        if (foreignOpenClaim) {
            for (Claim orphan : LedgerRules.toTakeOver(claims, live, owned, undecided.isZero())) {
                if (local.isUnwritten(new Slot(orphan.item(), orphan.fireTime()))
                        || elsewhere.contains(orphan.item())) {
                    continue;
                }
                if (config.failover()) {
                    work.computeIfAbsent(orphan.item(), item -> new ArrayList<>())
                            .add(new Step(null, orphan, List.of()));
                } else {
                    // Without failover, a dead owner's run is not repeated: the item-fire is recorded as failed.
                    ledger.takeOver(orphan, orphan.with(ClaimState.FAILED, now));
                }
            }
        }

        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        Map<Instant, Integer> totals = new TreeMap<>();
        for (FireView view : views) {
            if (isLate(view.fireTime(), now)) {
                claimed.put(view.fireTime(), view.claims().keySet());
                totals.put(view.fireTime(), view.total() > 0 ? view.total() : assignment.shardingTotalCount());
            }
        }
        // Not read, but claimed: a missed fire on either side of one is a run of its own, not coalesced across it.
        whole.stream().filter(fireTime -> isLate(fireTime, now)).forEach(fireTime -> claimed.put(fireTime, owned));
        Set<Integer> candidates = new HashSet<>(owned);
        candidates.removeAll(elsewhere);
        for (int busy : local.runningItems()) {
            if (candidates.remove(busy)) {
                // Looked at again when its run here ends, not at the next periodic audit.
                local.missedWhileBusy(busy);
            }
        }
        MakeUpPlan plan = LedgerRules.makeUps(claimed, candidates, policy(config), Instant.MAX, horizon);
        if (!plan.isEmpty()) {
            log.info(
                    "Job {} on {}: making up {}, coalescing {}, skipping {}",
                    runtime.jobName(),
                    me,
                    plan.run(),
                    plan.coalesced().keySet(),
                    plan.skipped());
        }
        // Skipped slots are recorded now; coalesced ones only once the run they fold into is won (see runSteps).
        Map<Instant, List<Claim>> skipped = new TreeMap<>();
        plan.skipped()
                .forEach(slot -> skipped.computeIfAbsent(slot.fireTime(), fireTime -> new ArrayList<>())
                        .add(first(slot, totals, assignment, session, now).with(ClaimState.SKIPPED, now)));
        for (Map.Entry<Instant, List<Claim>> fire : skipped.entrySet()) {
            ledger.claim(fire.getKey(), fire.getValue());
        }
        Map<Slot, List<Claim>> folded = new java.util.HashMap<>();
        plan.coalesced()
                .forEach((slot, into) -> folded.computeIfAbsent(into, target -> new ArrayList<>())
                        .add(first(slot, totals, assignment, session, now).with(ClaimState.COALESCED, now)));
        for (Slot slot : plan.run()) {
            work.computeIfAbsent(slot.item(), item -> new ArrayList<>())
                    .add(new Step(
                            first(slot, totals, assignment, session, now), null, folded.getOrDefault(slot, List.of())));
        }
        work.forEach((item, steps) -> {
            steps.sort((left, right) -> left.fireTime().compareTo(right.fireTime()));
            CompletableFuture.runAsync(() -> runSteps(item, steps, 0, session), executor);
        });
    }

    /**
     * Runs the work of one item from step {@code from}, oldest fire first, on the item executor: each step once the
     * previous one's end is recorded, without a thread waiting for that in between.
     */
    private void runSteps(int item, List<Step> steps, int from, long session) {
        for (int index = from; index < steps.size(); index++) {
            Step step = steps.get(index);
            if (!runtime.isAvailable() || runtime.sessionId() != session) {
                return;
            }
            LocalExecutions.Execution reservation = local.reserve(item);
            if (reservation == null) {
                // A fire runs the item here now: this audit's work waits for the next audit, which its end triggers.
                local.missedWhileBusy(item);
                return;
            }
            Claim owned = null;
            try {
                owned = acquire(step);
            } catch (Exception ex) {
                log.warn(
                        "Job {}: could not claim item {} of the fire at {}: {}",
                        runtime.jobName(),
                        item,
                        step.fireTime(),
                        ex.toString());
            }
            if (owned == null) {
                local.finish(item, reservation);
                continue;
            }
            foldInto(step);
            local.claimed(owned);
            CompletableFuture<Void> recorded = runner.runClaimedHere(job, owned, reservation);
            int next = index + 1;
            if (next < steps.size()) {
                recorded.whenComplete((ended, failure) -> {
                    try {
                        executor.execute(() -> runSteps(item, steps, next, session));
                    } catch (RejectedExecutionException stopping) {
                        // The instance stops: what is left is its items' next owners' to make up.
                    }
                });
            }
            return;
        }
    }

    /** The claim this step runs: its own, a new make-up claim, or an orphan taken over; null when another won it. */
    private @Nullable Claim acquire(Step step) throws Exception {
        if (step.orphan != null) {
            Claim orphan = step.orphan;
            ExecutionSource source =
                    orphan.source() == ExecutionSource.MISFIRE ? ExecutionSource.MISFIRE : ExecutionSource.FAILOVER;
            log.info(
                    "Job {}: taking over item {} of the fire at {} from {}",
                    runtime.jobName(),
                    orphan.item(),
                    orphan.fireTime(),
                    orphan.instanceId());
            return ledger.takeOver(
                            orphan,
                            orphan.takenOverBy(runtime.instanceId(), runtime.sessionId(), source, runtime.now()))
                    .orElse(null);
        }
        Claim claim = step.claim;
        if (claim.version() >= 0) {
            // This session's own claim, read before the item was reserved here: the run that held it may have ended
            // since. Only a claim still running under this session, with the item now reserved here, is stranded.
            return ledger.readClaim(claim.fireTime(), claim.item())
                    .filter(now -> now.state() == ClaimState.RUNNING && now.sessionId() == runtime.sessionId())
                    .filter(now -> !local.isUnwritten(new Slot(now.item(), now.fireTime())))
                    .orElse(null);
        }
        FireLedger.Claimed claimed = ledger.claim(claim.fireTime(), List.of(claim));
        return claimed.won().get(claim.item());
    }

    private boolean isLate(Instant fireTime, Instant now) {
        return local.hasPlanned(fireTime) || fireTime.isBefore(now.minus(LATENESS));
    }

    private Claim first(Slot slot, Map<Instant, Integer> totals, Assignment assignment, long session, Instant now) {
        return Claim.first(
                slot.item(),
                slot.fireTime(),
                runtime.instanceId(),
                session,
                ExecutionSource.MISFIRE,
                assignment.epoch(),
                totals.getOrDefault(slot.fireTime(), assignment.shardingTotalCount()),
                now);
    }

    /** The policy in force: the boolean {@code misfire} off means skip, whatever the policy says. */
    static MisfirePolicy policy(JobConfiguration config) {
        return config.misfire() ? config.misfirePolicy() : MisfirePolicy.SKIP;
    }

    /**
     * Records the missed fires a make-up run folds in, once its claim is won: had another run won that item-fire (its
     * new owner's regular fire, say), they would be folded into no late run at all; left unclaimed, the next audit makes
     * them up again.
     */
    private void foldInto(Step step) {
        Map<Instant, List<Claim>> byFire = new TreeMap<>();
        step.coalesced()
                .forEach(claim -> byFire.computeIfAbsent(claim.fireTime(), fireTime -> new ArrayList<>())
                        .add(claim));
        for (Map.Entry<Instant, List<Claim>> fire : byFire.entrySet()) {
            try {
                ledger.claim(fire.getKey(), fire.getValue());
            } catch (Exception ex) {
                log.warn(
                        "Job {}: could not record the fire at {} as coalesced, the next audit will: {}",
                        runtime.jobName(),
                        fire.getKey(),
                        ex.toString());
            }
        }
    }

    /**
     * One piece of an item's work: a claim of its own or to create ({@code claim}), or an orphan to take over; and the
     * missed fires its run folds in.
     */
    private record Step(@Nullable Claim claim, @Nullable Claim orphan, List<Claim> coalesced) {

        Instant fireTime() {
            return claim != null ? claim.fireTime() : orphan.fireTime();
        }
    }
}
