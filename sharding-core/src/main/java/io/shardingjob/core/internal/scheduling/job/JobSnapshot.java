package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.util.Set;

/**
 * What holds for one job on this instance at one moment, taken once for one decision: every rule of the decision reads
 * the same moment, where a stage that reads {@link JobView}'s getters one by one may mix two. Not the time: each
 * decision reads the job's clock once for what it writes.
 *
 * @param sessionId the client's session, the one claims name; 0 when there is none
 * @param available started, not stopping, connected and registered in {@code sessionId}
 * @param assignment the assignment in force, from the cache, with its node's version
 * @param owned the items this instance owns under {@code assignment}, whether or not it is left out
 * @param leftOut whether every reshard leaves this instance out: an operator disabled it, or it is leaving (its
 *     application not ready, or a close begun); it then runs no item and its fires close at once, rather than wait for
 *     an assignment that names it
 */
public record JobSnapshot(
        long sessionId,
        boolean available,
        JobConfiguration configuration,
        ShardingService.Versioned assignment,
        Set<Integer> owned,
        boolean leftOut,
        Set<Integer> disabledItems) {

    /** The same moment under another assignment: one read from ZooKeeper after a start was refused. */
    public JobSnapshot under(ShardingService.Versioned other, String me) {
        return new JobSnapshot(
                sessionId,
                available,
                configuration,
                other,
                Set.copyOf(other.assignment().itemsOf(me)),
                leftOut,
                disabledItems);
    }

    /** The items this instance may run under the assignment: none while it is left out. */
    public Set<Integer> runnable() {
        return leftOut ? Set.of() : owned;
    }
}
