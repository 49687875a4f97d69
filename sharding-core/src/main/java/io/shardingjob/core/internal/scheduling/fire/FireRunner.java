package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireListener;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the program's fires of one job enter the core (scheduled ones, ones run at once, this instance's items of a
 * manual fire) and are run through the fire ledger: a fire is let through ({@link FirePlanner}), planned and its items
 * claimed ({@link FireClaims}: made ahead with the ends of the previous fire or created at the fire in one
 * multi-operation), its runs handed to the executor, each run by the {@link ItemRunner} to its recorded end, and the
 * fire's listener told before and after. Each fire's time is made here, once: {@link FireSchedule#fireTimeOf} keeps
 * it to the millisecond, the ledger's key for it.
 */
public final class FireRunner {

    private static final Logger log = LoggerFactory.getLogger(FireRunner.class);

    /**
     * @param job the job's code for make-ups and take-overs, or null when the caller passes it to each fire
     * @param manualFireHandler starts this instance's items of a manual fire, or null to start them with the job and
     *     the item executor
     */
    public record JobCode(
            @Nullable ItemExecutor job,
            Executor itemExecutor,
            @Nullable ManualFireHandler manualFireHandler) {}

    private final JobView view;
    private final String jobName;

    /** This instance's id. */
    private final String me;

    private final FirePlanner planner;
    private final FireClaims claims;
    private final ItemRunner items;
    private final ItemHandOff handOff;
    private final FireListener fireListener;
    private final JobCode code;

    public FireRunner(
            JobView view,
            FirePlanner planner,
            FireClaims claims,
            ItemRunner items,
            ItemHandOff handOff,
            FireListener fireListener,
            JobCode code) {
        this.view = view;
        this.jobName = view.jobName();
        this.me = view.instanceId();
        this.planner = planner;
        this.claims = claims;
        this.items = items;
        this.handOff = handOff;
        this.fireListener = fireListener;
        this.code = code;
    }

    /** Runs one fire with the given job on the given executor, at the current time. */
    public FireReport fire(ItemExecutor job, Executor itemExecutor) {
        return fire(job, itemExecutor, ExecutionSource.NORMAL, view.now());
    }

    /** Runs one fire with the job and executor the runtime was built with. */
    public FireReport fire(ExecutionSource source, Instant fireTime) {
        return fire(builtJob(), code.itemExecutor(), source, fireTime);
    }

    /**
     * Runs one fire: claims this instance's items of it in the ledger, runs those it won and waits for them. Given an
     * executor that runs tasks on the calling thread ({@code Runnable::run}), the items run on the calling thread, one
     * after another, while it waits: never on the thread that happened to complete the fire's claims (see {@link
     * CallingThread}).
     */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant scheduled) {
        Instant fireTime = FireSchedule.fireTimeOf(scheduled);
        if (CallingThread.runsTasksOnTheCallingThread(itemExecutor)) {
            CallingThread caller = new CallingThread();
            return caller.runUntil(fireAsync(job, caller, source, fireTime));
        }
        try {
            return fireAsync(job, itemExecutor, source, fireTime).join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }

    /**
     * Starts one fire with the job and executor the runtime was built with: claims this instance's items of it and
     * hands them to the executor. The calling thread is free again as soon as they are handed on, or at once when the
     * fire must wait for a reshard or an audit (it then goes on, on the job's hand-off thread, when they are done: never
     * on the thread that ended the wait, ZooKeeper's or the coordination loop's, see {@link ItemHandOff}). The report
     * completes, on the hand-off thread, once every item ended and its end was recorded.
     */
    public CompletableFuture<FireReport> fireAsync(ExecutionSource source, Instant fireTime) {
        return fireAsync(builtJob(), code.itemExecutor(), source, FireSchedule.fireTimeOf(fireTime));
    }

    /**
     * The program's handler of manual fires, or by default a fire of the job given to the builder, started on the job's
     * hand-off thread.
     */
    public ManualFireHandler manualFireHandler() {
        ManualFireHandler given = code.manualFireHandler();
        if (given != null) {
            return given;
        }
        return ManualFires.firingOn(handOff.thread(), fireTime -> fireAsync(ExecutionSource.MANUAL, fireTime), jobName);
    }

    /** @param fireTime the fire's time as the ledger keys it */
    private CompletableFuture<FireReport> fireAsync(
            ItemExecutor job, Executor executor, ExecutionSource source, Instant fireTime) {
        return planner.gate(source, fireTime, handOff.thread())
                .thenApply(gate -> claims.plan(gate, fireTime))
                .thenCompose(plan -> start(job, executor, source, fireTime, plan));
    }

    private ItemExecutor builtJob() {
        ItemExecutor job = code.job();
        if (job == null) {
            throw new IllegalStateException("Job '" + jobName + "': no job was given to the builder");
        }
        return job;
    }

    /** Hands the planned items to the executor, from the fire's caller or the hand-off thread. */
    private CompletableFuture<FireReport> start(
            ItemExecutor job, Executor executor, ExecutionSource asked, Instant fireTime, FirePlanner.Plan plan) {
        // Told of as an operator's fire, a fire the jobs this one follows recorded runs as theirs.
        ExecutionSource source = plan.origin().sourceOr(asked);
        if (plan.skipReason() != null) {
            log.debug("Job {} on {}: fire skipped: {}", jobName, me, plan.skipReason());
            return CompletableFuture.completedFuture(FireReport.skippedEntirely(jobName, plan.skipReason()));
        }
        List<Claim> won = plan.won();
        List<Integer> wonItems = won.stream().map(Claim::item).toList();
        Map<Integer, Reservation> reservations = plan.reservations();
        JobConfiguration config = plan.job().configuration();
        log.debug(
                "Job {} on {}: {} fire at {} under epoch {}: running {}, skipped {}",
                jobName,
                me,
                source,
                fireTime,
                plan.epoch(),
                wonItems,
                plan.skipped());
        String taskId = ShardingContext.taskId(jobName, wonItems, me);
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
}
