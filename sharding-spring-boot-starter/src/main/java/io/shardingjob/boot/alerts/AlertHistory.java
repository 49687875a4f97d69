package io.shardingjob.boot.alerts;

import io.shardingjob.boot.ShardedJobAlert;
import io.shardingjob.boot.ShardedJobAlertListener;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** The last alerts of this instance, newest first, in memory, for {@code ShardingOperations.recentAlerts()}. */
public final class AlertHistory implements ShardedJobAlertListener {

    private final int capacity;

    private final Deque<ShardedJobAlert> alerts = new ArrayDeque<>();

    public AlertHistory(int capacity) {
        this.capacity = Math.max(0, capacity);
    }

    @Override
    public synchronized void onAlert(ShardedJobAlert alert) {
        if (capacity == 0) {
            return;
        }
        if (alerts.size() == capacity) {
            alerts.removeLast();
        }
        alerts.addFirst(alert);
    }

    /** Newest first. */
    public synchronized List<ShardedJobAlert> recent() {
        return List.copyOf(alerts);
    }
}
