package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.sharding.ShardingService;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;

/**
 * One job on this instance as the stages of its fires read it: who it is, what it is configured and assigned to do,
 * and whether it may start items now. Read-only: a stage that needs something done asks the part that does it (an
 * audit through {@link AuditDemand}), never the runtime.
 */
public interface JobView {

    /** What holds for the job now, read once: the input of one decision. */
    JobSnapshot snapshot();

    String jobName();

    String instanceId();

    /** The current ZooKeeper session of this instance's client: the session its claims name; 0 when there is none. */
    long sessionId();

    /** The job's clock: the time of fires started without a fire time, and of claims. */
    Instant now();

    /** The configuration every instance agrees on: the stored one. */
    JobConfiguration configuration();

    /** The assignment in force, from the cache. */
    Assignment assignment();

    /** The assignment in force and its node's version, read from ZooKeeper. */
    ShardingService.Versioned readVersionedAssignment();

    /** Started and not stopping: the job asks for work. */
    boolean isStarted();

    /** Whether this instance can start items: started, not stopping, connected and registered in its session. */
    boolean isAvailable();

    /**
     * How much longer an owner that is not registered cannot be judged dead here: for a session timeout after this
     * instance came back from losing its own session; zero otherwise.
     */
    Duration absentOwnersUndecidedFor(Instant now);
}
