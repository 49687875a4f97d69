package io.shardingjob.core.execution;

import java.time.Instant;

/**
 * How one run of one item ended.
 *
 * @param context what the item was told
 * @param failure the exception it threw, or {@code null} when it succeeded
 * @param fireTime the scheduled time of the fire it belongs to
 * @param retry 0 for the first run of the item in its fire, {@code n} for its n-th retry
 */
public record ItemResult(
        ShardingContext context,
        Instant start,
        Instant end,
        Throwable failure,
        ExecutionSource source,
        Instant fireTime,
        int retry) {

    public boolean succeeded() {
        return failure == null;
    }

    /** Whether the run exceeded the job's timeout and was interrupted. */
    public boolean timedOut() {
        return failure instanceof ItemTimeoutException;
    }

    /**
     * Whether a store refused the run's write because a later owner of the item wrote there with a higher fencing
     * token ({@link FencedOutException}): the run was taken over, and is not retried.
     */
    public boolean fencedOut() {
        return FencedOutException.isIn(failure);
    }
}
