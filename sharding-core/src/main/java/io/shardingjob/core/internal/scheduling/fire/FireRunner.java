package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job's fires on this instance through the fire ledger: a fire is planned ({@link FirePlanner}: the items
 * it holds claims for, made ahead with the ends of the previous fire or created at the fire in one multi-operation),
 * its items are handed to the executor ({@link ItemHandOff}), each run by the {@link ItemRunner} to its recorded end,
 * and the fire's listener is told before and after.
 */
public final class FireRunner {

    private static final Logger log = LoggerFactory.getLogger(FireRunner.class);

    private final String jobName;

    /** This instance's id. */
    private final String me;

    private final FirePlanner planner;

    private final RunMemory memory;

    private final ItemRunner items;

    private final ItemHandOff handOff;

    private final FireListener fireListener;

    public FireRunner(
            JobView view,
            RunMemory memory,
            FirePlanner planner,
            ItemRunner items,
            ItemHandOff handOff,
            FireListener fireListener) {
        this.jobName = view.jobName();
        this.me = view.instanceId();
        this.memory = memory;
        this.planner = planner;
        this.items = items;
        this.handOff = handOff;
        this.fireListener = fireListener;
    }

    /** Claims and runs this instance's items of one fire, and waits for them. */
    public FireReport fire(ItemExecutor job, Executor executor, ExecutionSource source, Instant fireTime) {
        try {
            return fireAsync(job, executor, source, fireTime).join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }

    /**
     * Claims this instance's items of one fire and hands them to the executor; the calling thread is free again as soon
     * as they are handed on, or at once when the fire must wait for a reshard or an audit (the planning then goes on,
     * on the job's hand-off thread, when they are done: never on the thread that ended the wait, ZooKeeper's or the
     * coordination loop's, see {@link ItemHandOff}). The report completes, on the hand-off thread, once every item
     * ended and its end was recorded.
     *
     * @param fireTime the fire's time as the ledger keys it ({@link io.shardingjob.core.config.FireSchedule#fireTimeOf})
     */
    public CompletableFuture<FireReport> fireAsync(
            ItemExecutor job, Executor executor, ExecutionSource source, Instant fireTime) {
        return planner.plan(source, fireTime, memory.sawFire(fireTime), handOff.thread())
                .thenCompose(plan -> start(job, executor, source, fireTime, plan));
    }

    /** Hands the planned items to the executor, from the fire's caller or the hand-off thread. */
    private CompletableFuture<FireReport> start(
            ItemExecutor job, Executor executor, ExecutionSource asked, Instant fireTime, FirePlanner.Plan plan) {
        // Told of as an operator's fire, a fire the jobs this one follows recorded runs as theirs.
        ExecutionSource source = plan.origin().sourceOr(asked);
        if (plan.skipReason() != null) {
            return CompletableFuture.completedFuture(skippedEntirely(plan.skipReason()));
        }
        List<Claim> won = plan.won();
        Map<Integer, Reservation> reservations = plan.reservations();
        JobConfiguration config = plan.job().configuration();
        log.debug(
                "Job {} on {}: {} fire at {} under epoch {}: running {}, skipped {}",
                jobName,
                me,
                source,
                fireTime,
                plan.epoch(),
                won.stream().map(Claim::item).toList(),
                plan.skipped());
        String taskId =
                ShardingContext.taskId(jobName, won.stream().map(Claim::item).toList(), me);
        List<ShardingContext> contexts = won.stream()
                .map(claim -> items.context(config, taskId, claim, plan.origin()))
                .toList();
        if (!contexts.isEmpty()) {
            ItemRunner.tell(jobName, () -> fireListener.beforeFire(jobName, fireTime, source, contexts));
        }
        List<CompletableFuture<ItemRunner.Run>> running = new ArrayList<>(won.size());
        // The first run to leave the executor's queue writes the starts of those that leave soon after it with its own;
        // claims made ahead with their starts written need none.
        FireStarts starts = new FireStarts(
                won.stream()
                        .filter(claim -> claim.state() != ClaimState.RUNNING)
                        .toList(),
                reservations,
                plan.origin());
        for (int i = 0; i < won.size(); i++) {
            Claim claim = won.get(i);
            ShardingContext context = contexts.get(i);
            ItemRun run = items.runOf(context, claim, reservations.get(claim.item()), starts, plan.origin());
            running.add(items.handOn(executor, handOff.thread(), job, run));
        }
        return reported(running, plan, source, fireTime, !contexts.isEmpty());
    }

    /**
     * The fire's report, once every run ended and its end was recorded: the item threads go back to their pool as each
     * item ends, and the fire ends once the ends are recorded. The fire's listener is told on the hand-off thread.
     */
    private CompletableFuture<FireReport> reported(
            List<CompletableFuture<ItemRunner.Run>> running,
            FirePlanner.Plan plan,
            ExecutionSource source,
            Instant fireTime,
            boolean told) {
        return CompletableFuture.allOf(running.toArray(CompletableFuture<?>[]::new))
                .thenCompose(itemsEnded -> CompletableFuture.allOf(
                        running.stream().map(item -> item.join().recorded()).toArray(CompletableFuture<?>[]::new)))
                .thenApplyAsync(
                        endsRecorded -> {
                            List<ItemResult> results = running.stream()
                                    .flatMap(item -> item.join().results().stream())
                                    .toList();
                            FireReport report = new FireReport(jobName, plan.epoch(), results, plan.skipped(), null);
                            if (told) {
                                ItemRunner.tell(
                                        jobName, () -> fireListener.afterFire(jobName, fireTime, source, report));
                            }
                            return report;
                        },
                        handOff.thread());
    }

    private FireReport skippedEntirely(String reason) {
        log.debug("Job {} on {}: fire skipped: {}", jobName, me, reason);
        return FireReport.skippedEntirely(jobName, reason);
    }
}
