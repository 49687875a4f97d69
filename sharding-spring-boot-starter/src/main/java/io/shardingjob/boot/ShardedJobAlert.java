package io.shardingjob.boot;

import java.time.Instant;
import java.util.List;

/**
 * Something about a sharded job that someone should know: an item or a fire that failed, a fire that was missed or
 * overran into the next. Raised on this instance and handed to every {@link ShardedJobAlertListener} bean when
 * {@code sharding.alerts.enabled} is on.
 *
 * @param type what happened
 * @param job the job
 * @param fireTime the fire it happened to (for an overrun, the fire that came due while the earlier one still ran)
 * @param items the items concerned, in order
 * @param instanceId the instance that raised the alert
 * @param raisedAt when it was raised
 * @param message what happened, for people: the error of a failed item, the items of a failed fire with how each
 *     ended, what the misfire policy did with a missed fire
 */
public record ShardedJobAlert(
        Type type,
        String job,
        Instant fireTime,
        List<Integer> items,
        String instanceId,
        Instant raisedAt,
        String message) {

    public ShardedJobAlert {
        items = List.copyOf(items);
    }

    /** What an alert is about. */
    public enum Type {
        /** An item's run ended failed or timed out after its retries: its final outcome in its fire. */
        ITEM_FAILED,
        /** A fire in which some item finally failed, across the cluster: raised once per fire, on one instance. */
        FIRE_FAILED,
        /** A fire came due but nobody claimed these items within the lateness bound (every instance down, say). */
        FIRE_MISSED,
        /** A fire came due while these items still ran from the previous fire. */
        FIRE_OVERRAN
    }
}
