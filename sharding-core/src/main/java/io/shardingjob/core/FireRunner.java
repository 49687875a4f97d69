package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.RunningMarks;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.sharding.Assignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Plans and runs one fire of one job on this instance. */
final class FireRunner {

    private static final Logger log = LoggerFactory.getLogger(FireRunner.class);

    private final JobCoordinator coordinator;

    private final RunningMarks runningMarks;

    FireRunner(JobCoordinator coordinator, RunningMarks runningMarks) {
        this.coordinator = coordinator;
        this.runningMarks = runningMarks;
    }

    FireReport fire(ItemExecutor job, Executor itemExecutor) {
        String jobName = coordinator.jobName();
        if (!coordinator.isAvailable()) {
            return FireReport.skippedEntirely(jobName, "not connected to ZooKeeper or not started");
        }
        JobConfiguration config = coordinator.configuration();
        if (config.disabled()) {
            return FireReport.skippedEntirely(jobName, "the job is disabled");
        }
        Assignment assignment = coordinator.awaitSharding();
        String instanceId = coordinator.instanceId();
        Map<Integer, String> skipped = new TreeMap<>();
        List<Integer> items = planItems(config, assignment.itemsOf(instanceId), skipped);
        if (items.isEmpty()) {
            return new FireReport(jobName, assignment.epoch(), List.of(), skipped, null);
        }
        if (config.monitorExecution()) {
            items = mark(items, assignment.epoch(), skipped);
        }
        String taskId = ShardingContext.taskId(jobName, items, instanceId);
        List<CompletableFuture<ItemResult>> running = new ArrayList<>(items.size());
        for (int item : items) {
            ShardingContext context = new ShardingContext(
                    jobName,
                    taskId,
                    assignment.shardingTotalCount(),
                    item,
                    config.itemParameters().get(item),
                    config.jobParameter(),
                    assignment.epoch(),
                    instanceId);
            running.add(
                    CompletableFuture.supplyAsync(() -> run(job, context, config.monitorExecution()), itemExecutor));
        }
        List<ItemResult> results = running.stream().map(CompletableFuture::join).toList();
        return new FireReport(jobName, assignment.epoch(), results, skipped, null);
    }

    private List<Integer> planItems(JobConfiguration config, List<Integer> owned, Map<Integer, String> skipped) {
        Set<Integer> disabled = new HashSet<>(coordinator.disabledItems());
        Set<Integer> running = config.monitorExecution() ? runningMarks.running() : Set.of();
        List<Integer> items = new ArrayList<>(owned.size());
        for (int item : owned) {
            if (disabled.contains(item)) {
                skipped.put(item, "disabled");
            } else if (running.contains(item)) {
                skipped.put(item, "still running");
            } else {
                items.add(item);
            }
        }
        return items;
    }

    private List<Integer> mark(List<Integer> items, long epoch, Map<Integer, String> skipped) {
        try {
            List<Integer> marked = runningMarks.mark(items, coordinator.instanceId(), epoch);
            items.stream().filter(item -> !marked.contains(item)).forEach(item -> skipped.put(item, "still running"));
            return marked;
        } catch (Exception ex) {
            log.warn("Job {}: could not mark items {} running; skipping this fire", coordinator.jobName(), items, ex);
            items.forEach(item -> skipped.put(item, "could not be marked running"));
            return List.of();
        }
    }

    private ItemResult run(ItemExecutor job, ShardingContext context, boolean monitored) {
        Instant start = Instant.now();
        try {
            if (!stillOwned(context)) {
                return new ItemResult(context, start, Instant.now(), new IllegalStateException("item moved"));
            }
            job.execute(context);
            return new ItemResult(context, start, Instant.now(), null);
        } catch (Throwable failure) {
            if (failure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("Job {}: item {} failed", context.jobName(), context.item(), failure);
            return new ItemResult(context, start, Instant.now(), failure);
        } finally {
            if (monitored) {
                runningMarks.clear(context.item());
            }
        }
    }

    /**
     * The fencing check right before an item starts: still connected, and no newer epoch gave the item to someone else.
     * The cache may still be behind the epoch the fire planned with (this instance just wrote it as leader).
     */
    private boolean stillOwned(ShardingContext context) {
        Assignment current = coordinator.assignment();
        return coordinator.isAvailable()
                && (current.epoch() <= context.epoch()
                        || current.itemsOf(context.instanceId()).contains(context.item()));
    }
}
