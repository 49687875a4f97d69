package io.shardingjob.boot.observation;

import io.micrometer.observation.Observation;
import io.shardingjob.core.execution.ShardingContext;
import org.jspecify.annotations.Nullable;

/** What a {@code sharding.item} observation sees: the run's context, and once it returned, whether it succeeded. */
public final class ShardingItemObservationContext extends Observation.Context {

    private final ShardingContext item;

    private @Nullable Boolean succeeded;

    public ShardingItemObservationContext(ShardingContext item) {
        this.item = item;
    }

    /** The job, item, fire and instance of the run. */
    public ShardingContext getItem() {
        return item;
    }

    /** Whether the run returned normally; null while it runs. */
    public @Nullable Boolean getSucceeded() {
        return succeeded;
    }

    public void setSucceeded(boolean succeeded) {
        this.succeeded = succeeded;
    }
}
