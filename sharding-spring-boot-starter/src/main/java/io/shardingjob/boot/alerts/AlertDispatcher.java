package io.shardingjob.boot.alerts;

import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardedJobAlertListener;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands alerts to the {@link ShardedJobAlertListener} beans on a thread of its own, one alert after another, so that
 * raising one costs a fire, an item or the coordination nothing but a queue offer. The queue is bounded: when the
 * listeners fall that far behind, new alerts are dropped, with a warning at the first one dropped.
 */
final class AlertDispatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AlertDispatcher.class);

    /** Alerts waiting for the listeners at most. */
    static final int QUEUE_CAPACITY = 1_000;

    private final Supplier<List<ShardedJobAlertListener>> listenerBeans;

    private final ThreadPoolExecutor thread;

    private final AtomicBoolean dropping = new AtomicBoolean();

    /** The listener beans, looked up at the first alert: they may be created after this dispatcher. */
    private volatile @Nullable List<ShardedJobAlertListener> listeners;

    AlertDispatcher(Supplier<List<ShardedJobAlertListener>> listenerBeans) {
        this.listenerBeans = listenerBeans;
        this.thread = new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUE_CAPACITY), runnable -> {
                    Thread alerts = new Thread(runnable, "sharding-alerts");
                    alerts.setDaemon(true);
                    return alerts;
                });
    }

    /** Queues the alert for the listeners; never blocks, never throws. */
    void dispatch(ShardedJobAlert alert) {
        try {
            thread.execute(() -> deliver(alert));
            dropping.set(false);
        } catch (RejectedExecutionException full) {
            if (!thread.isShutdown() && dropping.compareAndSet(false, true)) {
                log.warn(
                        "Alert listeners are {} alerts behind; dropping new alerts until they catch up: {}",
                        QUEUE_CAPACITY,
                        alert);
            }
        }
    }

    private void deliver(ShardedJobAlert alert) {
        for (ShardedJobAlertListener listener : listeners()) {
            try {
                if (listener.jobs().isEmpty() || listener.jobs().contains(alert.job())) {
                    listener.onAlert(alert);
                }
            } catch (RuntimeException ex) {
                log.warn("Job {}: alert listener {} failed", alert.job(), listener, ex);
            }
        }
    }

    private List<ShardedJobAlertListener> listeners() {
        List<ShardedJobAlertListener> known = listeners;
        if (known == null) {
            known = List.copyOf(listenerBeans.get());
            listeners = known;
        }
        return known;
    }

    /** Delivers what is queued for a moment, then stops. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(1, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException ex) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
