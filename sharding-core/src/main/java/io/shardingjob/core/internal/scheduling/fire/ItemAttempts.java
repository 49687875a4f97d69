package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ItemTimeoutException;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.scheduling.job.JobView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one item for one fire: the first run and, while it fails, up to {@code retries} more with the very context it
 * was fired with (item, total, parameter, epoch, fencing token), whatever the cluster did meanwhile, as XXL-JOB does.
 * Each run is bounded by the job's timeout.
 *
 * <p>The item's claim fences its retries: before each one the claim is rewritten with the retry number at the version
 * its owner holds, so a retry never starts once the claim was taken over, and an instance that takes the item over
 * after this one died continues the count with the original context.
 */
final class ItemAttempts {

    private static final Logger log = LoggerFactory.getLogger(ItemAttempts.class);

    private final JobView view;

    private final ScheduledExecutorService scheduler;

    private final ExecutionListener listener;

    ItemAttempts(JobView view, ScheduledExecutorService scheduler, ExecutionListener listener) {
        this.view = view;
        this.scheduler = scheduler;
        this.listener = listener;
    }

    /**
     * Runs the item and its retries.
     *
     * @param retry the retry the first run counts as: 0, or the retry a take-over continues
     * @param mayStart whether a run may start now ({@link io.shardingjob.core.internal.ledger.RunStart}): asked
     *     before every retry, as before the first run
     * @param beforeRetry records the retry in the claim; false when the claim is no longer this owner's
     */
    List<ItemResult> run(
            ItemExecutor job,
            ShardingContext context,
            ExecutionSource source,
            Instant fireTime,
            int retry,
            BooleanSupplier mayStart,
            IntPredicate beforeRetry) {
        List<ItemResult> results = new ArrayList<>(1);
        ItemResult result = runOnce(job, context, source, fireTime, retry);
        results.add(result);
        JobConfiguration config = view.configuration();
        while (!result.succeeded() && retry < config.retries() && mayRetry(mayStart)) {
            retry++;
            // The retry is recorded before the back-off, so that a take-over meanwhile continues the count; the rule is
            // asked again after it, since the back-off may outlast the session.
            if (!beforeRetry.test(retry) || !backOff(config.retryBackoff()) || !mayRetry(mayStart)) {
                break;
            }
            result = runOnce(job, context, ExecutionSource.RETRY, fireTime, retry);
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

    private ItemResult runOnce(
            ItemExecutor job, ShardingContext context, ExecutionSource source, Instant fireTime, int retry) {
        JobConfiguration config = view.configuration();
        Instant start = Instant.now();
        Throwable failure = null;
        ItemDeadline deadline = null;
        try {
            deadline = ItemDeadline.start(config.timeout(), scheduler);
            job.execute(context);
        } catch (Throwable thrown) {
            failure = thrown;
        }
        if (deadline != null && deadline.finish()) {
            failure = new ItemTimeoutException(context.jobName(), context.item(), config.timeout(), failure);
        } else if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            log.warn("Job {}: item {} failed: {}", context.jobName(), context.item(), failure.toString());
        }
        ItemResult result = new ItemResult(context, start, Instant.now(), failure, source, fireTime, retry);
        try {
            listener.itemFinished(result);
        } catch (RuntimeException ex) {
            log.warn("Job {}: an execution listener failed", context.jobName(), ex);
        }
        return result;
    }
}
