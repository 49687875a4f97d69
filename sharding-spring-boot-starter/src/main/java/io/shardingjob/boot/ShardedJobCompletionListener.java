package io.shardingjob.boot;

import io.shardingjob.core.execution.FireCompletionListener;
import java.util.Set;

/**
 * Told once per fire across the whole cluster, on one instance, when every item of the fire has ended wherever it ran,
 * retries and failover included, with how each ended; declare it as a bean on every instance. No instance waits for
 * another, a membership change does not matter, and if the instance making the call dies during it, the leader makes
 * it elsewhere (so the call happens at least once, twice only after such a crash). Costs a ZooKeeper write per item,
 * so the tracking is on only for jobs that have such a listener.
 */
public interface ShardedJobCompletionListener extends FireCompletionListener {

    /** The names of the jobs this listener is for; empty (the default) means every job. */
    default Set<String> jobs() {
        return Set.of();
    }
}
