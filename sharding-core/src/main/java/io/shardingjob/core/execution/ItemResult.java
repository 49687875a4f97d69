package io.shardingjob.core.execution;

import java.time.Instant;

/**
 * How one run of one item ended.
 *
 * @param context what the item was told
 * @param start when it started
 * @param end when it ended
 * @param failure the exception it threw, or {@code null} when it succeeded
 * @param source why it ran
 * @param fireTime the scheduled time of the fire it belongs to
 */
public record ItemResult(
        ShardingContext context,
        Instant start,
        Instant end,
        Throwable failure,
        ExecutionSource source,
        Instant fireTime) {

    /** A result of a normal fire whose fire time is its start. */
    public ItemResult(ShardingContext context, Instant start, Instant end, Throwable failure) {
        this(context, start, end, failure, ExecutionSource.NORMAL, start);
    }

    public boolean succeeded() {
        return failure == null;
    }
}
