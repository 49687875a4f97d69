package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimCommits;
import io.shardingjob.core.internal.ledger.ClaimState;
import io.shardingjob.core.internal.ledger.FireLedger;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the items of one job on this instance through the fire ledger: a fire claims this instance's items in one
 * multi-operation and runs those it won; make-ups and take-overs run a claim the audit won. Every run ends with a
 * versioned write of its claim (grouped with the writes of items ending together).
 */
final class FireRunner {

    private static final Logger log = LoggerFactory.getLogger(FireRunner.class);

    private final JobRuntime runtime;

    private final FireLedger ledger;

    private final ClaimCommits commits;

    private final LocalExecutions local;

    private final ItemAttempts attempts;

    private final ExecutionListener listener;

    private final FireListener fireListener;

    FireRunner(
            JobRuntime runtime,
            FireLedger ledger,
            ScheduledExecutorService commitExecutor,
            LocalExecutions local,
            ExecutionListener listener,
            FireListener fireListener) {
        this.runtime = runtime;
        this.ledger = ledger;
        this.commits = new ClaimCommits(ledger, commitExecutor);
        this.local = local;
        this.attempts = new ItemAttempts(runtime, listener);
        this.listener = listener;
        this.fireListener = fireListener;
    }

    /** Claims and runs this instance's items of one fire, and waits for them. */
    FireReport fire(ItemExecutor job, Executor executor, ExecutionSource source, Instant scheduled) {
        // The ledger keys fires by the millisecond: every run of the fire, here or elsewhere, carries the same time.
        Instant fireTime = scheduled.truncatedTo(ChronoUnit.MILLIS);
        String jobName = runtime.jobName();
        local.sawFire(fireTime);
        if (!runtime.isAvailable()) {
            // Its items of this fire are made up by whoever owns them once this instance is back or gone; for this
            // instance's own audit the fire is decided (late) at once.
            local.planned(fireTime);
            return skippedEntirely("not connected to ZooKeeper, or not started");
        }
        JobConfiguration config = runtime.configuration();
        if (config.disabled()) {
            return skippedEntirely("the job is disabled");
        }
        String me = runtime.instanceId();
        if (runtime.disabledInstances().contains(me)) {
            // Also when it was the last enabled instance: with no leader left to reshard, it still owns items.
            return skippedEntirely("this instance is disabled for the job");
        }
        Assignment assignment = runtime.awaitSharding();
        if (local.auditedEpoch() != assignment.epoch()) {
            // An item this assignment moved here may still run on its old owner: the audit of the new assignment says.
            runtime.requestAudit();
            local.awaitAudit(assignment.epoch(), runtime.shardingWaitTimeout());
        }
        long session = runtime.sessionId();
        Instant now = runtime.now();
        Set<Integer> disabled = new HashSet<>(runtime.disabledItems());
        Map<Integer, String> skipped = new TreeMap<>();
        Map<Integer, LocalExecutions.Execution> reservations = new TreeMap<>();
        List<Claim> wanted = new ArrayList<>();
        for (int item : assignment.itemsOf(me)) {
            Claim claim = Claim.first(
                    item, fireTime, me, session, source, assignment.epoch(), assignment.shardingTotalCount(), now);
            if (disabled.contains(item)) {
                // Recorded, so that the fire settles without waiting for an item that will not run.
                wanted.add(claim.with(ClaimState.SKIPPED, now));
                skipped.put(item, "disabled");
                continue;
            }
            if (!local.mayStart(item, assignment.epoch(), ledger::stillRuns)) {
                // Its audit makes this fire up once the other instance's run of the item has ended.
                skipped.put(item, "running on another instance for an earlier fire; made up when it ends");
                continue;
            }
            LocalExecutions.Execution reservation = local.reserve(item);
            if (reservation == null) {
                local.missedWhileBusy(item);
                skipped.put(item, "still running; misfired, made up when it ends as the misfire policy says");
                continue;
            }
            reservations.put(item, reservation);
            wanted.add(claim);
        }
        List<Claim> won = claim(fireTime, wanted, reservations, skipped, session);
        local.planned(fireTime);
        if (runtime.assignment().epoch() != assignment.epoch()) {
            // A reshard landed while this fire was planned: an item it gave this instance may have no claim in this
            // fire (its old owner planned with the new assignment), and this instance's audit makes it up now.
            runtime.requestAudit();
        }
        log.debug(
                "Job {} on {}: {} fire at {} under epoch {}: running {}, skipped {}",
                jobName,
                me,
                source,
                fireTime,
                assignment.epoch(),
                won.stream().map(Claim::item).toList(),
                skipped);
        String taskId =
                ShardingContext.taskId(jobName, won.stream().map(Claim::item).toList(), me);
        List<ShardingContext> contexts =
                won.stream().map(claim -> context(config, taskId, claim)).toList();
        if (!contexts.isEmpty()) {
            notify(() -> fireListener.beforeFire(jobName, fireTime, source, contexts));
        }
        List<CompletableFuture<Run>> running = new ArrayList<>(won.size());
        for (int i = 0; i < won.size(); i++) {
            Claim claim = won.get(i);
            ShardingContext context = contexts.get(i);
            LocalExecutions.Execution reservation = reservations.get(claim.item());
            running.add(CompletableFuture.supplyAsync(() -> run(job, context, claim, reservation), executor));
        }
        List<Run> runs = running.stream().map(CompletableFuture::join).toList();
        // The item threads went back to their pool; the fire ends once the ends of its items are recorded.
        runs.forEach(run -> run.recorded().join());
        List<ItemResult> results =
                runs.stream().flatMap(run -> run.results().stream()).toList();
        FireReport report = new FireReport(jobName, assignment.epoch(), results, skipped, null);
        if (!contexts.isEmpty()) {
            notify(() -> fireListener.afterFire(jobName, fireTime, source, report));
        }
        return report;
    }

    /**
     * Creates the claims; the items whose claim another run holds are released here. A claim that names this very
     * session was written by an earlier attempt of ours whose answer was lost: it is ours.
     */
    private List<Claim> claim(
            Instant fireTime,
            List<Claim> wanted,
            Map<Integer, LocalExecutions.Execution> reservations,
            Map<Integer, String> skipped,
            long session) {
        if (wanted.isEmpty()) {
            return List.of();
        }
        FireLedger.Claimed claimed;
        try {
            claimed = ledger.claim(fireTime, wanted);
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not claim items {} of the fire at {}; the audit makes them up: {}",
                    runtime.jobName(),
                    reservations.keySet(),
                    fireTime,
                    ex.toString());
            reservations.forEach((item, reservation) -> {
                local.finish(item, reservation);
                skipped.put(item, "could not be claimed");
            });
            runtime.requestAudit();
            return List.of();
        }
        List<Claim> won = new ArrayList<>();
        claimed.won().values().forEach(claim -> {
            if (claim.state() == ClaimState.RUNNING) {
                won.add(claim);
            }
        });
        claimed.lost().forEach((item, other) -> {
            LocalExecutions.Execution reservation = reservations.get(item);
            if (reservation == null) {
                return;
            }
            if (other.sessionId() == session && other.state() == ClaimState.RUNNING) {
                won.add(other);
            } else {
                local.finish(item, reservation);
                skipped.put(item, "claimed by " + other.instanceId() + " (" + other.state() + ")");
            }
        });
        won.sort((left, right) -> Integer.compare(left.item(), right.item()));
        won.forEach(local::claimed);
        return won;
    }

    /** Runs a claim the audit won (a make-up, a take-over, or one of this session's own) on the calling thread. */
    List<ItemResult> runClaimedHere(ItemExecutor job, Claim claim, LocalExecutions.Execution reservation) {
        JobConfiguration config = runtime.configuration();
        String taskId = ShardingContext.taskId(runtime.jobName(), List.of(claim.item()), runtime.instanceId());
        Run run = run(job, context(config, taskId, claim), claim, reservation);
        run.recorded().join();
        return run.results();
    }

    /**
     * One item's run: its results, and when its end was recorded in the ledger and the item released here.
     *
     * @param recorded completes once the claim's final write was answered (or is owed) and the item is free again
     */
    private record Run(List<ItemResult> results, CompletableFuture<Void> recorded) {}

    /**
     * Runs one claimed item with its retries on the calling thread, and queues the write of how it ended: the thread is
     * free again at once, the item once the write is answered.
     */
    private Run run(ItemExecutor job, ShardingContext context, Claim claim, LocalExecutions.Execution reservation) {
        int item = claim.item();
        if (!local.start(item, reservation)) {
            local.settled(claim);
            return new Run(List.of(), CompletableFuture.completedFuture(null));
        }
        AtomicReference<Claim> held = new AtomicReference<>(claim);
        List<ItemResult> results = List.of();
        CompletableFuture<Void> recorded = null;
        try {
            results = attempts.run(
                    job,
                    context,
                    claim.source(),
                    claim.fireTime(),
                    claim.retry(),
                    reservation,
                    retry -> write(held, held.get().atRetry(retry), context));
            ItemResult last = results.get(results.size() - 1);
            // An item interrupted because this instance stops or lost its connection is presumed unfinished, however
            // it returned: its claim goes to the item's next owner.
            ClaimState end = reservation.isAbandoned()
                    ? ClaimState.RELEASED
                    : last.succeeded() ? ClaimState.DONE : ClaimState.FAILED;
            Claim ended = held.get().with(end, runtime.now());
            recorded = commits.writeLater(ended, local.endingLastOfItsFire(claim))
                    .handle((stored, failure) -> {
                        recordEnd(ended, stored, failure, context);
                        return null;
                    });
        } finally {
            // Pool threads are reused: an interrupt meant for this item must not reach the next one.
            Thread.interrupted();
            Runnable release = () -> {
                local.settled(claim);
                local.finish(item, reservation);
                if (local.takeMissedWhileBusy(item)) {
                    runtime.requestAudit();
                }
            };
            if (recorded == null) {
                release.run();
                recorded = CompletableFuture.completedFuture(null);
            } else {
                recorded = recorded.whenComplete((done, failure) -> release.run());
            }
        }
        return new Run(results, recorded);
    }

    private void recordEnd(Claim ended, Optional<Claim> stored, Throwable failure, ShardingContext context) {
        if (failure != null) {
            log.warn(
                    "Job {}: could not record item {} of the fire at {} as {}; will retry: {}",
                    runtime.jobName(),
                    ended.item(),
                    ended.fireTime(),
                    ended.state(),
                    failure.toString());
            local.unwritten(ended);
        } else if (stored.isEmpty()) {
            claimLost(ended, context);
        } else if (ended.state() != ClaimState.RELEASED) {
            runtime.itemEnded(ended.fireTime());
        }
    }

    private void claimLost(Claim next, ShardingContext context) {
        log.warn(
                "Job {}: item {} of the fire at {} was taken over by another instance; this run's {} is not recorded",
                runtime.jobName(),
                next.item(),
                next.fireTime(),
                next.state());
        notify(() -> listener.claimLost(context, next.fireTime()));
    }

    /**
     * Records a retry in the claim at the version held, and waits for the answer: a retry starts only while the claim
     * is still this owner's. Lost: another instance owns it now, say so and touch nothing else.
     */
    private boolean write(AtomicReference<Claim> held, Claim next, ShardingContext context) {
        try {
            Optional<Claim> stored = commits.write(next);
            if (stored.isPresent()) {
                held.set(stored.get());
                return true;
            }
            claimLost(next, context);
            return false;
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not record retry {} of item {} of the fire at {}; not retrying: {}",
                    runtime.jobName(),
                    next.retry(),
                    next.item(),
                    next.fireTime(),
                    ex.toString());
            return false;
        }
    }

    /**
     * Writes the ends of items that could not be recorded when they ended, in one request.
     *
     * @return whether nothing is owed any more: until then, this session's audit must not act on these claims
     */
    boolean writeOwed() {
        List<Claim> owed = local.takeUnwritten();
        if (owed.isEmpty()) {
            return true;
        }
        try {
            // Directly, not through the group commit: this runs on the coordination thread, which may be the one the
            // group commit drains on.
            FireLedger.Written written = ledger.update(owed);
            written.lost()
                    .forEach(lost -> log.warn(
                            "Job {}: item {} of the fire at {} was taken over before its end could be recorded",
                            runtime.jobName(),
                            lost.item(),
                            lost.fireTime()));
            written.written().stream()
                    .filter(claim -> claim.state() != ClaimState.RELEASED)
                    .forEach(claim -> runtime.itemEnded(claim.fireTime()));
            return true;
        } catch (Exception ex) {
            owed.forEach(local::unwritten);
            log.debug("Job {}: {} ends still owed: {}", runtime.jobName(), owed.size(), ex.toString());
            return false;
        }
    }

    private void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: a listener failed", runtime.jobName(), ex);
        }
    }

    private FireReport skippedEntirely(String reason) {
        log.debug("Job {} on {}: fire skipped: {}", runtime.jobName(), runtime.instanceId(), reason);
        return FireReport.skippedEntirely(runtime.jobName(), reason);
    }

    private ShardingContext context(JobConfiguration config, String taskId, Claim claim) {
        return new ShardingContext(
                runtime.jobName(),
                taskId,
                claim.total(),
                claim.item(),
                config.itemParameters().get(claim.item()),
                config.jobParameter(),
                claim.epoch(),
                runtime.instanceId(),
                claim.fencingToken());
    }
}
