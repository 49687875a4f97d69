package io.shardingjob.core.execution;

/**
 * Told about every item run of a job on this instance, whatever started it (a fire, a misfire, a failover). Called on
 * the thread that ran the item; implementations must be quick and must not throw.
 */
@FunctionalInterface
public interface ExecutionListener {

    void itemFinished(ItemResult result);

    /**
     * Told when this instance finished an item of a fire but could not record how it ended, because its claim was no
     * longer its own: its session ended (it was paused or cut off longer than the session timeout) and another instance
     * took the item over. Whatever the run wrote downstream may be repeated by the new owner; its fencing token is
     * lower than the new owner's.
     */
    default void claimLost(ShardingContext context, java.time.Instant fireTime) {}
}
