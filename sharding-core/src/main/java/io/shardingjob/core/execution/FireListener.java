package io.shardingjob.core.execution;

import java.time.Instant;
import java.util.List;

/**
 * Told before and after this instance runs its items of a fire (Elastic-Job's job listener). Not called for a fire in
 * which this instance runs nothing, nor for failover runs, which belong to another instance's fire. Called on the
 * fire's thread; an exception is logged and ignored.
 */
public interface FireListener {

    /** Before the first of {@code items} starts. */
    default void beforeFire(String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {}

    /** After every item of the fire on this instance ended, retries included. */
    default void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {}
}
