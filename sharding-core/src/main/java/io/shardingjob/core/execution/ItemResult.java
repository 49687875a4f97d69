package io.shardingjob.core.execution;

import java.time.Instant;

/**
 * How one item of a fire ended.
 *
 * @param context what the item was told
 * @param start when it started
 * @param end when it ended
 * @param failure the exception it threw, or {@code null} when it succeeded
 */
public record ItemResult(ShardingContext context, Instant start, Instant end, Throwable failure) {

    public boolean succeeded() {
        return failure == null;
    }
}
