package io.shardingjob.boot;

import java.util.Set;

/**
 * Told of the alerts of the sharded jobs on this instance; declare it as a bean and set
 * {@code sharding.alerts.enabled=true}. Calls come one after another from one thread of the starter, never from a fire's
 * or an item's thread, so a listener cannot slow a job down; but a listener that blocks delays the alerts of the others,
 * so hand slow work (a network call) to a thread of your own, as the webhook sender does. An exception is logged and
 * affects neither the jobs nor the other listeners.
 */
@FunctionalInterface
public interface ShardedJobAlertListener {

    void onAlert(ShardedJobAlert alert);

    /** The names of the jobs this listener is for; empty (the default) means every job. */
    default Set<String> jobs() {
        return Set.of();
    }
}
