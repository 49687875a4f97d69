package io.shardingjob.core.config;

/**
 * What happens to the fires of an item that did not run when due: its owner was dead, cut off, stopping or still busy
 * with an earlier fire, or the item moved between instances at the fire. Property {@code misfire-policy}.
 */
public enum MisfirePolicy {
    /** Missed fires in a row run once, late, with the latest one's fire time: Quartz's fire-once-now. The default. */
    ONCE,
    /** Every missed fire runs once, late, with its own fire time, up to the catch-up horizon. */
    ALL,
    /** Missed fires are recorded as skipped and do not run. */
    SKIP
}
