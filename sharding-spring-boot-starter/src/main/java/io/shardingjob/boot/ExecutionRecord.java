package io.shardingjob.boot;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How one item of one fire ran on this instance.
 *
 * @param job the job
 * @param item the item
 * @param parameter the item's parameter, empty when it has none
 * @param instance the instance that ran it
 * @param epoch the assignment epoch it ran under
 * @param fireTime the scheduled time of the fire the item belongs to (for a manual trigger: when it was asked for; for
 *     a failover or a misfire: the fire that was made up)
 * @param start when the item started
 * @param end when the item ended
 * @param outcome whether it succeeded
 * @param source why the item ran: a scheduled fire, a misfire, a failover, an operator, a retry
 * @param failure the exception's text when it failed or timed out, otherwise {@code null}
 * @param shardingTotalCount the total the item was fired with (a retry keeps it even if the total changed since)
 * @param jobParameter the job parameter the item was given
 * @param retry 0 for the first run of the item in its fire, {@code n} for its n-th retry
 */
public record ExecutionRecord(
        String job,
        int item,
        String parameter,
        String instance,
        long epoch,
        Instant fireTime,
        Instant start,
        Instant end,
        Outcome outcome,
        ExecutionSource source,
        @Nullable String failure,
        int shardingTotalCount,
        String jobParameter,
        int retry) {

    /** How an item ended. */
    public enum Outcome {
        SUCCESS,
        FAILED,
        /** It exceeded the job's timeout and was interrupted. */
        TIMED_OUT,
        /**
         * A store refused its write because a later owner of the item wrote with a higher fencing token: the run was
         * taken over, and the new owner runs the item ({@link io.shardingjob.core.execution.FencedOutException}).
         */
        FENCED_OUT
    }

    /** The record of one run of one item, as the coordination core reports it. */
    public static ExecutionRecord of(ItemResult result) {
        ShardingContext context = result.context();
        Throwable failure = result.failure();
        return new ExecutionRecord(
                context.jobName(),
                context.item(),
                context.itemParameter(),
                context.instanceId(),
                context.epoch(),
                result.fireTime(),
                result.start(),
                result.end(),
                outcome(result),
                result.source(),
                failure == null ? null : failure.toString(),
                context.shardingTotalCount(),
                context.jobParameter(),
                result.retry());
    }

    private static Outcome outcome(ItemResult result) {
        if (result.succeeded()) {
            return Outcome.SUCCESS;
        }
        if (result.timedOut()) {
            return Outcome.TIMED_OUT;
        }
        return result.fencedOut() ? Outcome.FENCED_OUT : Outcome.FAILED;
    }

    public Duration duration() {
        return Duration.between(start, end);
    }
}
