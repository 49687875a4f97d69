package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.FireCompletions;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireRecord;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.RunningMark;
import io.shardingjob.core.execution.RunningMarks;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.failover.Orphan;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Plans and runs the items of one job on this instance: fires, misfire re-runs and claimed orphans. */
final class FireRunner {

    private static final Logger log = LoggerFactory.getLogger(FireRunner.class);

    private final JobCoordinator coordinator;

    private final RunningMarks marks;

    private final LocalExecutions local;

    private final ItemAttempts attempts;

    private final FireListener fireListener;

    private final FireCompletions completions;

    FireRunner(
            JobCoordinator coordinator,
            RunningMarks marks,
            LocalExecutions local,
            ExecutionListener listener,
            FireListener fireListener,
            FireCompletions completions) {
        this.coordinator = coordinator;
        this.marks = marks;
        this.local = local;
        this.attempts = new ItemAttempts(coordinator, marks, listener);
        this.fireListener = fireListener;
        this.completions = completions;
    }

    FireReport fire(ItemExecutor job, Executor executor, ExecutionSource source, Instant fireTime) {
        return fire(job, executor, source, fireTime, null);
    }

    /**
     * Runs the fire for the items this instance owns, or only for {@code only} of them when it is given (a misfire
     * made up after another instance's run of those items ended).
     */
    FireReport fire(ItemExecutor job, Executor executor, ExecutionSource source, Instant fireTime, Set<Integer> only) {
        String jobName = coordinator.jobName();
        if (!coordinator.isAvailable()) {
            if (coordinator.isStopping() && only == null) {
                handFireOn(source, fireTime);
            }
            return skippedEntirely("not connected to ZooKeeper, or not started");
        }
        JobConfiguration config = coordinator.configuration();
        if (config.disabled()) {
            return skippedEntirely("the job is disabled");
        }
        if (coordinator.disabledInstances().contains(coordinator.instanceId())) {
            // Also when it was the last enabled instance: with no leader left to reshard, it still owns items.
            return skippedEntirely("this instance is disabled for the job");
        }
        // A fire that finds a reshard pending waits for it and runs under the new assignment, as every instance that
        // sees the flag does; one that finds none plans with the assignment in force at its time.
        boolean reshardPending = coordinator.isReshardPending();
        Assignment current = coordinator.awaitSharding();
        Assignment assignment =
                only == null && !reshardPending ? coordinator.assignmentInForceAt(fireTime, current) : current;
        if (assignment != current) {
            log.debug(
                    "Job {}: epoch {} was written after the fire at {}; planning it under epoch {}",
                    jobName,
                    current.epoch(),
                    fireTime,
                    assignment.epoch());
        }
        Map<Integer, String> skipped = new TreeMap<>();
        if (config.failover() && only == null) {
            String me = coordinator.instanceId();
            marks.recordFire(
                    me,
                    FireRecord.next(
                            previousRecord(me),
                            coordinator.sessionId(),
                            fireTime,
                            assignment.epoch(),
                            assignment.shardingTotalCount(),
                            assignment.itemsOf(me),
                            coordinator.fireRecordRetention()));
        }
        List<Integer> owned = assignment.itemsOf(coordinator.instanceId()).stream()
                .filter(item -> only == null || only.contains(item))
                .toList();
        Map<Integer, LocalExecutions.Execution> reservations = new TreeMap<>();
        List<Integer> notRunForThisFire = new ArrayList<>();
        long session = coordinator.sessionId();
        RunningMark ours = new RunningMark(
                coordinator.instanceId(),
                session,
                assignment.epoch(),
                fireTime,
                assignment.shardingTotalCount(),
                source);
        List<Integer> items = plan(config, owned, ours, skipped, reservations, notRunForThisFire);
        boolean tracked = tracksMarks(config);
        if (tracked && !items.isEmpty()) {
            items = mark(config, items, ours, skipped, reservations, notRunForThisFire);
        }
        notRunForThisFire.forEach(item -> itemEnded(fireTime, item, assignment.shardingTotalCount(), null));
        log.debug(
                "Job {} on {}: {} fire at {} under epoch {}: running {}, skipped {}",
                jobName,
                coordinator.instanceId(),
                source,
                fireTime,
                assignment.epoch(),
                items,
                skipped);
        String taskId = ShardingContext.taskId(jobName, items, coordinator.instanceId());
        List<ShardingContext> contexts = items.stream()
                .map(item -> context(config, taskId, assignment.shardingTotalCount(), item, assignment.epoch()))
                .toList();
        if (!contexts.isEmpty()) {
            notify(() -> fireListener.beforeFire(jobName, fireTime, source, contexts));
        }
        List<CompletableFuture<List<ItemResult>>> running = new ArrayList<>(items.size());
        for (ShardingContext context : contexts) {
            LocalExecutions.Execution reservation = reservations.get(context.item());
            running.add(CompletableFuture.supplyAsync(
                    () -> ended(runItem(
                            job, context, source, fireTime, 0, tracked, session, config.misfire(), reservation)),
                    executor));
        }
        List<ItemResult> results = running.stream()
                .map(CompletableFuture::join)
                .flatMap(List::stream)
                .toList();
        FireReport report = new FireReport(jobName, assignment.epoch(), results, skipped, null);
        if (!contexts.isEmpty()) {
            notify(() -> fireListener.afterFire(jobName, fireTime, source, report));
        }
        return report;
    }

    /** Runs claimed orphans with the context of the fire they belong to; the claim itself was the fence. */
    CompletableFuture<Void> runOrphans(List<Orphan> orphans, ItemExecutor job, Executor executor) {
        JobConfiguration config = coordinator.configuration();
        long session = coordinator.sessionId();
        List<CompletableFuture<?>> running = new ArrayList<>();
        for (Orphan orphan : orphans) {
            RunningMark dead = orphan.mark();
            String taskId =
                    ShardingContext.taskId(coordinator.jobName(), List.of(orphan.item()), coordinator.instanceId());
            ShardingContext context = context(config, taskId, dead.shardingTotalCount(), orphan.item(), dead.epoch());
            log.info(
                    "Job {}: taking over item {} of the fire at {} from {}",
                    coordinator.jobName(),
                    orphan.item(),
                    dead.fireTime(),
                    dead.instanceId());
            // A misfire handed on by an instance that could not run it stays a misfire run.
            ExecutionSource source =
                    dead.source() == ExecutionSource.MISFIRE ? ExecutionSource.MISFIRE : ExecutionSource.FAILOVER;
            running.add(CompletableFuture.runAsync(
                    () -> ended(runItem(
                            job,
                            context,
                            source,
                            dead.fireTime(),
                            dead.retry(),
                            true,
                            session,
                            config.misfire(),
                            local.reserveForFailover(orphan.item()))),
                    executor));
        }
        return CompletableFuture.allOf(running.toArray(new CompletableFuture<?>[0]));
    }

    /** Tells the completion tracking how each fire's item ended here: its last run for that fire counts. */
    private List<ItemResult> ended(List<ItemResult> results) {
        if (completions != null) {
            Map<Instant, ItemResult> lastPerFire = new TreeMap<>();
            results.forEach(result -> lastPerFire.put(result.fireTime(), result));
            lastPerFire.forEach((fireTime, last) ->
                    itemEnded(fireTime, last.context().item(), last.context().shardingTotalCount(), last));
        }
        return results;
    }

    /** @param result how it ended, or {@code null} when it was skipped for the fire */
    private void itemEnded(Instant fireTime, int item, int total, ItemResult result) {
        if (completions != null) {
            completions.itemEnded(
                    fireTime,
                    item,
                    total,
                    result == null ? FireCompletion.Outcome.SKIPPED : FireCompletion.Outcome.of(result));
        }
    }

    private void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException ex) {
            log.warn("Job {}: a fire listener failed", coordinator.jobName(), ex);
        }
    }

    private FireRecord previousRecord(String me) {
        return marks.fireRecord(me, coordinator.sessionId()).orElse(null);
    }

    private FireReport skippedEntirely(String reason) {
        log.debug("Job {} on {}: fire skipped: {}", coordinator.jobName(), coordinator.instanceId(), reason);
        return FireReport.skippedEntirely(coordinator.jobName(), reason);
    }

    static boolean tracksMarks(JobConfiguration config) {
        // Failover needs the marks to know what a crash left unfinished, whether or not monitorExecution is on.
        return config.monitorExecution() || config.failover();
    }

    private List<Integer> plan(
            JobConfiguration config,
            List<Integer> owned,
            RunningMark ours,
            Map<Integer, String> skipped,
            Map<Integer, LocalExecutions.Execution> reservations,
            List<Integer> notRunForThisFire) {
        Instant fireTime = ours.fireTime();
        Set<Integer> disabled = new HashSet<>(coordinator.disabledItems());
        Map<Integer, Instant> takenOver = coordinator.takenFromThisInstance();
        Map<Integer, RunningMark> marked = tracksMarks(config) ? marks.all() : Map.of();
        List<Integer> items = new ArrayList<>(owned.size());
        String me = coordinator.instanceId();
        long session = coordinator.sessionId();
        for (int item : owned) {
            RunningMark mark = marked.get(item);
            if (mark != null && mark.instanceId().equals(me) && mark.sessionId() == session) {
                // Our own session's mark of an item we are not running (the reservation below decides): the cache has
                // not yet seen the deletion that ended its last run. Creating the new mark is the real check.
                mark = null;
            }
            if (disabled.contains(item)) {
                skipped.put(item, "disabled");
                notRunForThisFire.add(item);
                continue;
            }
            LocalExecutions.Execution reservation = local.reserve(item);
            if (reservation == null) {
                if (config.misfire()) {
                    local.markMisfired(item, fireTime);
                    skipped.put(item, "still running; misfired, runs again when it finishes");
                } else {
                    skipped.put(item, "still running");
                    notRunForThisFire.add(item);
                }
            } else if (takenOver.containsKey(item) && !fireTime.isAfter(takenOver.get(item))) {
                // The seed's take-off items: a fire that another instance already ran for this one is not run again.
                // Later fires are this instance's again (with no reshard after a surviving session, a skip until the
                // next reshard would skip them forever).
                local.finish(item, reservation);
                skipped.put(item, "this fire was taken over by failover");
                notRunForThisFire.add(item);
            } else if (mark != null && marks.isLive(mark) && !mark.fireTime().isBefore(fireTime)) {
                // Another instance runs it for this very fire (it owned it when it planned): nothing to make up.
                local.finish(item, reservation);
                skipped.put(item, "running on " + mark.instanceId() + " for this fire");
            } else if (mark != null) {
                local.finish(item, reservation);
                String why = marks.isLive(mark)
                        ? "still running on " + mark.instanceId()
                        : "left unfinished by " + mark.instanceId() + " (failover runs that fire)";
                runAfterOtherRun(config, item, ours, why, skipped, notRunForThisFire);
            } else {
                reservations.put(item, reservation);
                items.add(item);
            }
        }
        return items;
    }

    /**
     * An item of this fire that another run of an earlier fire still holds (running elsewhere, or left behind by a dead
     * instance for failover) runs after it: with misfire on, here once that run's mark is gone (the misfire rule
     * across instances); with failover on, through the failover queue as an orphan of its own fire. Only with both off
     * is the fire skipped for the item.
     */
    private void runAfterOtherRun(
            JobConfiguration config,
            int item,
            RunningMark ours,
            String why,
            Map<Integer, String> skipped,
            List<Integer> notRunForThisFire) {
        if (config.misfire()) {
            local.markRunningElsewhere(item, ours.fireTime());
            skipped.put(item, why + "; runs here when that ends");
            return;
        }
        if (config.failover()) {
            try {
                coordinator.enqueueOrphan(item, ours);
                skipped.put(item, why + "; queued for failover for this fire");
                return;
            } catch (Exception ex) {
                log.warn(
                        "Job {}: could not queue item {} for failover: {}", coordinator.jobName(), item, ex.toString());
            }
        }
        skipped.put(item, why);
        notRunForThisFire.add(item);
    }

    private List<Integer> mark(
            JobConfiguration config,
            List<Integer> items,
            RunningMark mark,
            Map<Integer, String> skipped,
            Map<Integer, LocalExecutions.Execution> reservations,
            List<Integer> notRunForThisFire) {
        try {
            List<Integer> marked = marks.mark(items, mark);
            for (int item : items) {
                if (!marked.contains(item)) {
                    // Someone marked it between our cache read and our write: a failover run (perhaps ours) or a
                    // slower owner. The item runs once that run's mark is gone.
                    local.finish(item, reservations.remove(item));
                    runAfterOtherRun(config, item, mark, "marked by another run", skipped, notRunForThisFire);
                }
            }
            return marked;
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not mark items {} running; skipping them this fire",
                    coordinator.jobName(),
                    items,
                    ex);
            items.forEach(item -> {
                local.finish(item, reservations.remove(item));
                skipped.put(item, "could not be marked running");
            });
            return List.of();
        }
    }

    private List<ItemResult> runItem(
            ItemExecutor job,
            ShardingContext first,
            ExecutionSource source,
            Instant fireTime,
            int retry,
            boolean tracked,
            long session,
            boolean misfire,
            LocalExecutions.Execution reservation) {
        int item = first.item();
        if (!local.start(item, reservation)) {
            return List.of();
        }
        List<ItemResult> results = new ArrayList<>(1);
        boolean handedOver = false;
        try {
            if (!reservation.isClaimed() && !attempts.stillOwned(first)) {
                // Fenced off: a newer epoch gave the item to someone else before it started. It still runs for this
                // fire, through failover, instead of being lost between the two owners.
                handedOver = tracked;
                if (tracked) {
                    coordinator.handOver(item);
                }
                handMisfireOn(item, misfire ? local.takeMisfired(item) : Optional.empty(), session);
                return results;
            }
            results.addAll(attempts.run(job, first, source, fireTime, retry, tracked, session, reservation));
            Optional<Instant> missed = misfire ? local.takeMisfired(item) : Optional.empty();
            // However many fires were missed, the item runs once more, with the context of the latest.
            while (missed.isPresent()) {
                Assignment current = coordinator.assignment();
                if (!coordinator.isAvailable()
                        || !current.itemsOf(first.instanceId()).contains(item)) {
                    // Moved away, or this instance is stopping or cut off: the new owner did not see the fire.
                    handMisfireOn(item, missed, session);
                    break;
                }
                ShardingContext again = context(
                        coordinator.configuration(),
                        first.taskId(),
                        current.shardingTotalCount(),
                        item,
                        current.epoch());
                results.addAll(attempts.run(
                        job, again, ExecutionSource.MISFIRE, missed.get(), 0, tracked, session, reservation));
                missed = local.takeMisfired(item);
            }
        } finally {
            // The mark goes before the item counts as finished, so that a shutdown waiting for idleness never sees
            // the mark of a completed item and hands it to failover.
            if (tracked && !handedOver && !reservation.isAbandoned()) {
                marks.clear(item, session);
            }
            local.finish(item, reservation);
            // Pool threads are reused: an interrupt meant for this item must not reach the next one.
            Thread.interrupted();
        }
        return results;
    }

    /**
     * A fire that arrives while this instance stops: others may plan it with the assignment that still gives this
     * instance its items (the reshard that leaves it out can land a moment after the fire), so its items of the fire
     * go to failover rather than being lost.
     */
    private void handFireOn(ExecutionSource source, Instant fireTime) {
        JobConfiguration config = coordinator.configuration();
        if (!config.failover() || config.disabled()) {
            return;
        }
        Assignment assignment = coordinator.assignmentInForceAt(fireTime, coordinator.assignment());
        Set<Integer> disabled = new HashSet<>(coordinator.disabledItems());
        for (int item : assignment.itemsOf(coordinator.instanceId())) {
            if (disabled.contains(item)) {
                continue;
            }
            try {
                coordinator.enqueueOrphan(
                        item,
                        new RunningMark(
                                coordinator.instanceId(),
                                coordinator.sessionId(),
                                assignment.epoch(),
                                fireTime,
                                assignment.shardingTotalCount(),
                                source));
            } catch (Exception ex) {
                log.warn(
                        "Job {}: could not hand item {} of the fire at {} on while stopping: {}",
                        coordinator.jobName(),
                        item,
                        fireTime,
                        ex.toString());
            }
        }
    }

    /**
     * A misfire this instance cannot run (the item moved, or the instance stops) goes to failover for the fire it
     * stands for, still as a misfire run, so that the misfire rule's one run happens wherever the item is now.
     */
    void handMisfireOn(int item, Optional<Instant> missed, long session) {
        if (missed.isEmpty()) {
            return;
        }
        if (!coordinator.configuration().failover()) {
            log.info(
                    "Job {}: misfire of item {} for the fire at {} dropped: the item moved and failover is off",
                    coordinator.jobName(),
                    item,
                    missed.get());
            return;
        }
        Assignment current = coordinator.assignment();
        try {
            coordinator.enqueueOrphan(
                    item,
                    new RunningMark(
                            coordinator.instanceId(),
                            session,
                            current.epoch(),
                            missed.get(),
                            current.shardingTotalCount(),
                            ExecutionSource.MISFIRE));
        } catch (Exception ex) {
            log.warn(
                    "Job {}: could not hand the misfire of item {} on: {}", coordinator.jobName(), item, ex.toString());
        }
    }

    private ShardingContext context(JobConfiguration config, String taskId, int total, int item, long epoch) {
        return new ShardingContext(
                coordinator.jobName(),
                taskId,
                total,
                item,
                config.itemParameters().get(item),
                config.jobParameter(),
                epoch,
                coordinator.instanceId());
    }
}
