package io.shardingjob.core.internal.scheduling.fire;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The time limit of one run of one item: a timer on the coordination scheduler interrupts the item's thread when it
 * expires. The run and the timer race through one compare-and-set, so an interrupt is sent only while the run is still
 * inside the job, never to whatever the pool thread runs next. A job that ignores interrupts cannot be stopped: it is
 * still recorded as timed out when it returns.
 */
final class ItemDeadline {

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
