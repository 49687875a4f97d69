package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ItemHandOff;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work a {@link LedgerAudit} found for this instance's items, its runs handed to the item executor: per item, its
 * own claims it lost track of, orphans to take over and fires to make up, oldest fire first, each step once the
 * previous one's end is recorded, so the make-ups of an item never overlap each other or a fire of the item here. Every
 * step is decided again by ZooKeeper: a make-up is a claim that fails if the item-fire was claimed since the audit read
 * it, a take-over a versioned write that fails if the orphan changed. No thread waits for these writes: each step goes
 * on, on the job's hand-off thread, once ZooKeeper answered; never on ZooKeeper's thread or the coordination loop,
 * from which a run must not be handed to the executor ({@link ItemHandOff}).
 */
final class AuditWork {

    private static final Logger log = LoggerFactory.getLogger(AuditWork.class);
    private final JobView view;
    private final AuditDemand audits;
    private final LedgerAudit.Ledger ledger;
    private final ItemHandOff handOff;
    private final @Nullable ItemExecutor job;
    private final Executor executor;
    private final RunMemory memory;

    AuditWork(
            JobView view,
            AuditDemand audits,
            LedgerAudit.Ledger ledger,
            ItemHandOff handOff,
            RunMemory memory,
            FireRunner.JobCode code) {
        this.memory = memory;
        this.view = view;
        this.audits = audits;
        this.ledger = ledger;
        this.handOff = handOff;
        this.job = code.job();
        this.executor = code.itemExecutor();
    }

    boolean hasJob() {
        return job != null;
    }

    /**
     * @param reserved the items the audit found reserved for it (see {@link RunMemory#endRun}): their work runs under
     *     that reservation, before any newer fire of the item
     */
    void start(Map<Integer, List<Step>> work, long session, Map<Integer, Reservation> reserved) {
        work.forEach((item, steps) -> {
            steps.sort((left, right) -> left.fireTime().compareTo(right.fireTime()));
            Reservation held = reserved.get(item);
            onHandOffThread(() -> runSteps(item, steps, 0, session, held));
        });
    }

    /** @param reservation the item's reservation this work already holds, or null to reserve it now */
    private void runSteps(int item, List<Step> steps, int index, long session, @Nullable Reservation reservation) {
        if (index >= steps.size() || !view.isAvailable() || view.sessionId() != session) {
            if (reservation != null) {
                release(item, reservation);
            }
            return;
        }
        Step step = steps.get(index);
        Reservation reserved = reservation != null ? reservation : memory.reserveForAudit(item);
        if (reserved == null) {
            // A fire runs the item here now: this audit's work waits for the next audit, which its end triggers.
            memory.missedWhileBusy(item);
            return;
        }
        acquire(step)
                .whenComplete((owned, failure) -> onHandOffThread(() -> {
                    if (failure != null) {
                        log.warn(
                                "Job {}: could not claim item {} of the fire at {}: {}",
                                view.jobName(),
                                item,
                                step.fireTime(),
                                Answers.cause(failure).toString());
                    }
                    if (owned == null) {
                        // Kept for the next step: freed in between, the item's next fire could take it first.
                        runSteps(item, steps, index + 1, session, reserved);
                        return;
                    }
                    memory.claimed(owned);
                    handOff.handOnClaimed(executor, job, owned, reserved, step.origin(), () -> foldInto(step, reserved))
                            .whenComplete((ended, error) ->
                                    onHandOffThread(() -> runSteps(item, steps, index + 1, session, null)));
                }));
    }

    /** Frees a reservation no step ran under, or keeps it for the audit a fire that found it busy meanwhile owes. */
    private void release(int item, Reservation reservation) {
        if (memory.endRun(item, reservation) != null) {
            audits.soon();
        }
    }

    private void onHandOffThread(Runnable task) {
        handOff.thread().execute(task);
    }

    /** The claim this step runs: its own, a new make-up claim, or an orphan taken over; null when another won it. */
    private CompletableFuture<@Nullable Claim> acquire(Step step) {
        if (step.orphan != null) {
            Claim orphan = step.orphan;
            // Handed on before it started, it runs as what it was made for; a run that started and was cut is repeated.
            ExecutionSource source = orphan.state().neverStarted() || orphan.source() == ExecutionSource.MISFIRE
                    ? orphan.source()
                    : ExecutionSource.FAILOVER;
            log.info(
                    "Job {}: taking over item {} of the fire at {} from {}",
                    view.jobName(),
                    orphan.item(),
                    orphan.fireTime(),
                    orphan.instanceId());
            return ledger.claims()
                    .takeOverAsync(orphan, orphan.takenOverBy(view.instanceId(), view.sessionId(), source, view.now()))
                    .thenApply(taken -> taken.orElse(null));
        }
        Claim claim = step.claim;
        if (claim.version() >= 0) {
            // This session's own claim, read before the item was reserved here: the run that held it may have ended
            // since. Only a claim still running under this session, with the item now reserved here, is stranded.
            long session = view.sessionId();
            return ledger.reads()
                    .readClaimAsync(claim.fireTime(), claim.item())
                    .thenApply(stored -> stored.filter(now -> now.state().isHeld() && now.sessionId() == session)
                            .filter(now -> !memory.isUnwritten(new Slot(now.item(), now.fireTime())))
                            .orElse(null));
        }
        return ledger.claims()
                .claimAsync(claim.fireTime(), List.of(claim))
                .thenApply(claimed -> claimed.won().get(claim.item()));
    }

    /**
     * Records the missed fires a make-up run folds in, once its claim is won: had another run won that item-fire (its
     * new owner's regular fire, say), they would be folded into no late run at all; left unclaimed, the next audit makes
     * them up again. Recorded once the run's start is written, as the run enters the job's code: sent before, these
     * records went first in the client's one write request on its way, and the start waited behind them (a round trip
     * or more on a slow link, and three when a merged request was refused for a fire node another instance created).
     * Each one recorded is settled by the run: an audit that read it unclaimed meanwhile, and took it for a fire the
     * busy item missed, has the run's end plan its make-up from what this instance knows all the same.
     */
    private void foldInto(Step step, Reservation run) {
        Map<Instant, List<Claim>> byFire = new TreeMap<>();
        step.coalesced()
                .forEach(claim -> byFire.computeIfAbsent(claim.fireTime(), fireTime -> new ArrayList<>())
                        .add(claim));
        byFire.forEach((fireTime, claims) -> ledger.claims()
                .claimAsync(fireTime, claims)
                .thenAccept(claimed -> {
                    if (claimed.won().containsKey(claims.get(0).item())) {
                        run.settles(fireTime);
                    }
                })
                .exceptionally(failure -> {
                    log.warn(
                            "Job {}: could not record the fire at {} as coalesced, the next audit will: {}",
                            view.jobName(),
                            fireTime,
                            Answers.cause(failure).toString());
                    return null;
                }));
    }

    /**
     * One piece of an item's work: a claim of its own or to create ({@code claim}), or an orphan to take over; the
     * missed fires its run folds in; and how its fire was asked for, as the audit read it from the fire's node (the job
     * parameter the run gets).
     */
    record Step(@Nullable Claim claim, @Nullable Claim orphan, List<Claim> coalesced, FireOrigin origin) {

        Instant fireTime() {
            return claim != null ? claim.fireTime() : orphan.fireTime();
        }
    }
}
