package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The checkpoints of one run, kept in its item's claim: the last one is the claim's (a take-over, a retry or a re-run
 * reads it from the claim it continues), and each save rewrites the claim at the version the run holds, so that only
 * the run that owns the item now can write one, and a run taken over learns it is a zombie.
 */
final class RunCheckpoints implements CurrentRun.Checkpoints {

    private final ItemRun run;
    private final RunEnds ends;

    RunCheckpoints(ItemRun run, RunEnds ends) {
        this.run = run;
        this.ends = ends;
    }

    @Override
    public Optional<String> last() {
        return Optional.ofNullable(run.held().checkpoint());
    }

    /** One at a time: two saves at the version the run holds would find the claim changed under the second. */
    @Override
    public synchronized void save(String checkpoint) {
        ShardingContext context = run.context();
        int bytes = checkpoint.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > ShardingContext.MAX_CHECKPOINT_BYTES) {
            throw new IllegalArgumentException("Job '" + context.jobName() + "': the checkpoint of item "
                    + context.item() + " is " + bytes + " bytes, more than the " + ShardingContext.MAX_CHECKPOINT_BYTES
                    + " a claim carries; save how far the item got (an offset, a key), not the data");
        }
        if (!ends.checkpoint(run, checkpoint)) {
            throw new FencedOutException(context, "its claim in the fire ledger", null);
        }
    }
}
