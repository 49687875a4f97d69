package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ItemTimeoutException;
import io.shardingjob.core.execution.RunningMark;
import io.shardingjob.core.execution.RunningMarks;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one item for one fire: the first run and, while it fails, up to {@code retries} more with the very context it
 * was fired with (item, total, parameter, epoch), whatever the cluster did meanwhile, as XXL-JOB does. Each run is
 * bounded by the job's timeout.
 *
 * <p>A retry is fenced by the item's running mark, not by the epoch: the mark stays in ZooKeeper from the first run to
 * the last retry, so the item's new owner under a newer epoch skips it until the retries end. Before each retry the
 * mark is rewritten with the retry number, so that if this instance dies during the back-off or the retry, the
 * instance that takes the item over through failover continues the count with the original context.
 */
final class ItemAttempts {

    private static final Logger log = LoggerFactory.getLogger(ItemAttempts.class);

    private final JobCoordinator coordinator;

    private final RunningMarks marks;

    private final ExecutionListener listener;

    ItemAttempts(JobCoordinator coordinator, RunningMarks marks, ExecutionListener listener) {
        this.coordinator = coordinator;
        this.marks = marks;
        this.listener = listener;
    }

    /**
     * Runs the item and its retries.
     *
     * @param retry the retry the first run counts as: 0, or the retry a failover run continues
     * @param tracked whether the item carries a running mark of {@code session}
     */
    List<ItemResult> run(
            ItemExecutor job,
            ShardingContext context,
            ExecutionSource source,
            Instant fireTime,
            int retry,
            boolean tracked,
            long session,
            LocalExecutions.Execution reservation) {
        List<ItemResult> results = new ArrayList<>(1);
        ItemResult result = runOnce(job, context, source, fireTime, retry, reservation.isClaimed());
        results.add(result);
        JobConfiguration config = coordinator.configuration();
        while (!result.succeeded()
                && !(result.failure() instanceof FencedOff)
                && retry < config.retries()
                && mayRetry(tracked, session, reservation)) {
            retry++;
            if (tracked) {
                marks.markRetry(
                        context.item(),
                        new RunningMark(
                                context.instanceId(),
                                session,
                                context.epoch(),
                                fireTime,
                                context.shardingTotalCount(),
                                ExecutionSource.RETRY,
                                retry));
            }
            if (!backOff(config.retryBackoff()) || !mayRetry(tracked, session, reservation)) {
                break;
            }
            result = runOnce(job, context, ExecutionSource.RETRY, fireTime, retry, true);
            results.add(result);
        }
        return results;
    }

    /** Only while this instance still holds the item: not abandoned at shutdown, and the session that marked it. */
    private boolean mayRetry(boolean tracked, long session, LocalExecutions.Execution reservation) {
        return !reservation.isAbandoned()
                && !Thread.currentThread().isInterrupted()
                && coordinator.isAvailable()
                && (!tracked || coordinator.sessionId() == session);
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

    /** @param fencedByMark whether a running mark, not the epoch, fences this run: claimed orphans and retries */
    ItemResult runOnce(
            ItemExecutor job,
            ShardingContext context,
            ExecutionSource source,
            Instant fireTime,
            int retry,
            boolean fencedByMark) {
        JobConfiguration config = coordinator.configuration();
        Instant start = Instant.now();
        Throwable failure = null;
        ItemDeadline deadline = null;
        try {
            // Failover runs and retries are fenced by their running mark, not by the epoch they carry.
            if (!fencedByMark && !stillOwned(context)) {
                throw new FencedOff(context);
            }
            deadline = ItemDeadline.start(config.timeout(), coordinator.scheduler());
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

    /**
     * The fencing check right before an item starts: still connected, and no newer epoch gave the item to someone else.
     * The cache may still be behind the epoch the fire planned with (this instance just wrote it as leader).
     */
    boolean stillOwned(ShardingContext context) {
        Assignment current = coordinator.assignment();
        return coordinator.isAvailable()
                && (current.epoch() <= context.epoch()
                        || current.itemsOf(context.instanceId()).contains(context.item()));
    }

    /** An item that a newer epoch moved away before it started: not run, and not retried. */
    private static final class FencedOff extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        FencedOff(ShardingContext context) {
            super("item " + context.item() + " is no longer owned under epoch " + context.epoch() + "; not started");
        }
    }
}
