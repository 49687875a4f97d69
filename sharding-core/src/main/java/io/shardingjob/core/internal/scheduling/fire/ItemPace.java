package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.StartBatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pace of one job's runs on this instance, which sizes how many starts are written ahead ({@link StartBatch}): how
 * many runs hold an item thread now, and how long a run recently held it (from leaving the queue to handing its end to
 * the group commit). The time follows a slower run at once and a faster one gradually, so that items that grow longer
 * soon stop having starts written far ahead of them.
 */
final class ItemPace {

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicLong itemNanos = new AtomicLong(StartBatch.UNKNOWN);

    /** A run took an item thread; returns when, for {@link #ended}. */
    long left() {
        running.incrementAndGet();
        return System.nanoTime();
    }

    /** The run that took its thread at {@code leftNanos} gives it back. */
    void ended(long leftNanos) {
        running.decrementAndGet();
        long sample = Math.max(1, System.nanoTime() - leftNanos);
        itemNanos.accumulateAndGet(
                sample,
                (recent, now) -> recent < 0 ? now : now > recent ? (recent + now) / 2 : recent - (recent - now) / 8);
    }

    int running() {
        return running.get();
    }

    long itemNanos() {
        return itemNanos.get();
    }
}
