package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ItemTimeoutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one item for one fire: the first run and, while it fails, up to {@code retries} more with the very context it
 * was fired with (item, total, parameter, epoch, fencing token), whatever the cluster did meanwhile, as XXL-JOB does.
 * Each run is bounded by the job's timeout, and enters the job's code only while the session's last proof through the
 * ensemble's leader is no older than a third of the session timeout, as a run that begins with no write must be.
 *
 * <p>The item's claim fences its retries: before each one the claim is rewritten with the retry number at the version
 * its owner holds, so a retry never starts once the claim was taken over, and an instance that takes the item over
 * after this one died continues the count with the original context.
 */
final class ItemAttempts {

    private static final Logger log = LoggerFactory.getLogger(ItemAttempts.class);
    private final ScheduledExecutorService scheduler;
    private final ExecutionListener listener;
    private final BooleanSupplier sessionProven;
    private final Clock clock;

    /**
     * @param sessionProven whether the session's last proof still vouches for a run ({@link
     *     io.shardingjob.core.internal.ledger.RunStart#proven}), asked right before the job's code
     * @param clock the job's clock, which a run's start and end are read from, as its claim's are
     */
    ItemAttempts(
            ScheduledExecutorService scheduler,
            ExecutionListener listener,
            BooleanSupplier sessionProven,
            Clock clock) {
        this.scheduler = scheduler;
        this.listener = listener;
        this.sessionProven = sessionProven;
        this.clock = clock;
    }

    /**
     * Runs the item and its retries; none when the session's proof aged past a third of its timeout before the job's
     * code (nothing of the run began then), and no more retries once it did before a retry's.
     *
     * @param config the job as the run left its queue: its timeout and retries
     * @param checkpoints where the runs' checkpoints are kept, and the last one read
     * @param retry the retry the first run counts as: 0, or the retry a take-over continues
     * @param mayStart whether a run may start now ({@link io.shardingjob.core.internal.ledger.RunStart}): asked
     *     before every retry, as before the first run
     * @param beforeRetry records the retry in the claim; false when the claim is no longer this owner's
     */
    List<ItemResult> run(
            ItemExecutor job,
            JobConfiguration config,
            ShardingContext context,
            CurrentRun.Checkpoints checkpoints,
            int retry,
            BooleanSupplier mayStart,
            IntPredicate beforeRetry) {
        List<ItemResult> results = new ArrayList<>(1);
        ItemResult result = runOnce(job, config, context, checkpoints, context.source(), retry);
        if (result == null) {
            return results;
        }
        results.add(result);
        // A run fenced out was taken over: its item's new owner runs it, and a retry here would be refused as well.
        while (!result.succeeded() && !result.fencedOut() && retry < config.retries() && mayRetry(mayStart)) {
            retry++;
            // The retry is recorded before the back-off, so that a take-over meanwhile continues the count; the rule is
            // asked again after it, since the back-off may outlast the session.
            if (!beforeRetry.test(retry) || !backOff(config.retryBackoff()) || !mayRetry(mayStart)) {
                break;
            }
            ItemResult next = runOnce(job, config, context, checkpoints, ExecutionSource.RETRY, retry);
            if (next == null) {
                break;
            }
            result = next;
            results.add(result);
        }
        return results;
    }

    private static boolean mayRetry(BooleanSupplier mayStart) {
        return !Thread.currentThread().isInterrupted() && mayStart.getAsBoolean();
    }

    /** Waits before a retry on the item's own thread, which keeps the item reserved; false when interrupted. */
    private static boolean backOff(Duration backoff) {
        if (backoff.isZero()) {
            return true;
        }
        try {
            Thread.sleep(backoff.toMillis());
            return true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** One run of the item; null when the session's proof aged too much for it to enter the job's code. */
    private @Nullable ItemResult runOnce(
            ItemExecutor job,
            JobConfiguration config,
            ShardingContext context,
            CurrentRun.Checkpoints checkpoints,
            ExecutionSource source,
            int retry) {
        Instant start = clock.instant();
        Throwable failure = null;
        ItemDeadline deadline = null;
        try {
            deadline = ItemDeadline.start(config.timeout(), scheduler);
            // Last, right before the job's code: a pause of the process after the start's answer (or the decision to
            // begin with none) must not start the job on a session the leader may have expired meanwhile.
            if (!sessionProven.getAsBoolean()) {
                return notProven(deadline, context);
            }
            CurrentRun.execute(context, checkpoints, job);
        } catch (Throwable thrown) {
            failure = thrown;
        }
        if (deadline != null && deadline.finish()) {
            failure = new ItemTimeoutException(context.jobName(), context.item(), config.timeout(), failure);
        } else if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (FencedOutException.isIn(failure)) {
            log.warn(
                    "Job {}: item {} fenced out, not retried: {}",
                    context.jobName(),
                    context.item(),
                    failure.toString());
        } else if (failure != null) {
            log.warn("Job {}: item {} failed: {}", context.jobName(), context.item(), failure.toString());
        }
        ItemResult result = new ItemResult(context, start, clock.instant(), failure, source, context.fireTime(), retry);
        try {
            listener.itemFinished(result);
        } catch (RuntimeException ex) {
            log.warn("Job {}: an execution listener failed", context.jobName(), ex);
        }
        return result;
    }

    private static @Nullable ItemResult notProven(@Nullable ItemDeadline deadline, ShardingContext context) {
        if (deadline != null) {
            deadline.finish();
        }
        log.warn(
                "Job {}: item {} does not start: nothing proved the session through the ensemble's leader for a third"
                        + " of its timeout",
                context.jobName(),
                context.item());
        return null;
    }

    /**
     * The time limit of one run of one item: a timer on the coordination scheduler interrupts the item's thread when it
     * expires. The run and the timer race through one compare-and-set, so an interrupt is sent only while the run is still
     * inside the job, never to whatever the pool thread runs next. A job that ignores interrupts cannot be stopped: it is
     * still recorded as timed out when it returns.
     */
    private static final class ItemDeadline {

        private static final int RUNNING = 0;
        private static final int FINISHED = 1;
        private static final int EXPIRED = 2;
        private final AtomicInteger state = new AtomicInteger(RUNNING);
        private final @Nullable ScheduledFuture<?> timer;

        private ItemDeadline(Duration timeout, ScheduledExecutorService scheduler) {
            Thread runner = Thread.currentThread();
            @Nullable ScheduledFuture<?> scheduled;
            try {
                scheduled = scheduler.schedule(
                        () -> {
                            if (state.compareAndSet(RUNNING, EXPIRED)) {
                                runner.interrupt();
                            }
                        },
                        timeout.toNanos(),
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                // The coordinator is closing: its shutdown interrupts the item anyway.
                scheduled = null;
            }
            this.timer = scheduled;
        }

        /** Starts the clock for the calling thread; {@code null} when there is no limit. */
        static @Nullable ItemDeadline start(Duration timeout, ScheduledExecutorService scheduler) {
            return timeout.isZero() ? null : new ItemDeadline(timeout, scheduler);
        }

        /** Stops the clock once the job returned or threw; true when it had timed out (its interrupt, ours, cleared). */
        boolean finish() {
            if (timer != null) {
                timer.cancel(false);
            }
            if (state.compareAndSet(RUNNING, FINISHED)) {
                return false;
            }
            Thread.interrupted();
            return true;
        }
    }
}
