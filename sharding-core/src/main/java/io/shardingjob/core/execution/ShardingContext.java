package io.shardingjob.core.execution;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one item of one fire is told about itself.
 *
 * @param taskId {@code job@-@items@-@READY@-@instance}, naming the fire's items on this instance
 * @param shardingTotalCount the number of items of the fire
 * @param item this item, {@code 0..shardingTotalCount-1}
 * @param itemParameter this item's parameter, empty when it has none
 * @param jobParameter the job's parameter, empty when it has none
 * @param epoch the assignment epoch the item runs under; a job can fence its own writes with it, e.g. {@code UPDATE
 *     ... SET fence = :epoch WHERE fence <= :epoch}
 * @param instanceId the instance running the item
 * @param fencingToken grows with every new owner of this item's run for this fire (the ZooKeeper {@code mzxid} of the
 *     write that gave it its claim): a store that remembers the highest token it accepted per item and refuses lower
 *     ones cannot be written by an owner that lost the claim, e.g. {@code UPDATE stock SET qty = :qty, token = :token
 *     WHERE region = :item AND token <= :token}
 * @param fireTime the scheduled time of the fire this run belongs to, the same on every instance and in every run of
 *     the item for that fire (a make-up, a take-over, a retry): with the job and the item, a key that makes a job's
 *     writes idempotent
 * @param source why the item runs
 * @param chain the job whose fire began the chain of jobs this run belongs to: this job, unless its fire was recorded
 *     by the jobs it follows; with {@code fireTime}, the identity every job of a workflow shares for one root fire
 */
public record ShardingContext(
        String jobName,
        String taskId,
        int shardingTotalCount,
        int item,
        String itemParameter,
        String jobParameter,
        long epoch,
        String instanceId,
        long fencingToken,
        Instant fireTime,
        ExecutionSource source,
        String chain) {

    /**
     * The largest checkpoint, in bytes of UTF-8: it travels in the item's claim, which is read and written with the
     * claims of the other items of its fire, so it stays a small part of what one ZooKeeper request carries.
     */
    public static final int MAX_CHECKPOINT_BYTES = 16 * 1024;

    /**
     * The last checkpoint saved for this item of this fire: by a run this one continues (a take-over of a run cut off,
     * a retry, a re-run of a failed item) or earlier in this run; empty for a new fire. Read it at the start of the
     * item to resume where the last run stopped.
     *
     * @throws IllegalStateException when the run is not executing in this process
     */
    public Optional<String> checkpoint() {
        return CurrentRun.checkpointsOf(this).last();
    }

    /**
     * Saves how far the item got, for a run that continues this one should it be cut: written in the item's claim at
     * the version this run holds, so only the run that owns the item now can write it, and waited for. Keep it small (at
     * most {@value io.shardingjob.core.execution.ShardingContext#MAX_CHECKPOINT_BYTES} bytes of UTF-8) and save it
     * every so many units of work, not every one: each save is one write to ZooKeeper.
     *
     * @throws FencedOutException when the run was taken over (its process was paused or cut off past its session): it
     *     must stop, as the item's new owner runs it
     * @throws IllegalArgumentException when the checkpoint is larger than allowed
     * @throws IllegalStateException when the run is not executing in this process, or no answer came from ZooKeeper
     */
    public void saveCheckpoint(String checkpoint) {
        CurrentRun.checkpointsOf(this).save(checkpoint);
    }

    /** The task id of a fire, as Elastic-Job writes it: {@code job@-@0,1,2@-@READY@-@instance}. */
    public static String taskId(String jobName, List<Integer> items, String instanceId) {
        return jobName + "@-@" + items.stream().map(String::valueOf).collect(Collectors.joining(",")) + "@-@READY@-@"
                + instanceId;
    }
}
