package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimState;
import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work a {@link LedgerAudit} found for this instance's items, run on the item executor: per item, its own claims
 * it lost track of, orphans to take over and fires to make up, oldest fire first, each step once the previous one's
 * end is recorded, so the make-ups of an item never overlap each other or a fire of the item here. Every step is
 * decided again by ZooKeeper: a make-up is a claim that fails if the item-fire was claimed since the audit read it, a
 * take-over a versioned write that fails if the orphan changed. These writes wait on the item executor's threads,
 * never on the coordination loop.
 */
final class AuditWork {

    private static final Logger log = LoggerFactory.getLogger(AuditWork.class);

    private final JobRuntime runtime;

    private final FireLedger ledger;

    private final FireRunner runner;

    private final LocalExecutions local;

    private final @Nullable ItemExecutor job;

    private final Executor executor;

    AuditWork(
            JobRuntime runtime,
            FireLedger ledger,
            FireRunner runner,
            LocalExecutions local,
            @Nullable ItemExecutor job,
            Executor executor) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.runner = runner;
        this.local = local;
        this.job = job;
        this.executor = executor;
    }

    /** Starts the work of each item, oldest fire first, under the session the audit saw. */
    void start(Map<Integer, List<Step>> work, long session) {
        work.forEach((item, steps) -> {
            steps.sort((left, right) -> left.fireTime().compareTo(right.fireTime()));
            try {
                executor.execute(() -> runSteps(item, steps, 0, session));
            } catch (RejectedExecutionException stopping) {
                // The instance stops: what is left is its items' next owners' to make up.
            }
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
    record Step(@Nullable Claim claim, @Nullable Claim orphan, List<Claim> coalesced) {

        Instant fireTime() {
            return claim != null ? claim.fireTime() : orphan.fireTime();
        }
    }
}
