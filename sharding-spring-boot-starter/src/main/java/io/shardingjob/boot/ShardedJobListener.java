package io.shardingjob.boot;

import io.shardingjob.core.JobCoordinator;

/**
 * Told about the sharded jobs of this application; declare a bean to receive the calls (alerting, auditing, metrics).
 * Calls come from the job threads: keep them short, and do not throw (an exception is logged and ignored).
 */
public interface ShardedJobListener {

    /** A job joined the registry and is about to be scheduled. */
    default void jobStarted(JobCoordinator job) {}

    /** An item ended on this instance, whatever made it run: a fire, a misfire, a failover, an operator. */
    default void executed(ExecutionRecord execution) {}
}
