package io.shardingjob.boot.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.shardingjob.core.execution.ShardingContext;

/**
 * Names a {@code sharding.item} observation and its key values: low-cardinality {@code job}, {@code source} and
 * {@code outcome} (SUCCESS, FAILED, or UNKNOWN while it runs), high-cardinality {@code item}, {@code fire.time} and
 * {@code instance}. A bean of this type replaces {@link #DEFAULT}; override only what you change.
 */
public interface ShardingItemObservationConvention extends ObservationConvention<ShardingItemObservationContext> {

    /** The names and key values described above. */
    ShardingItemObservationConvention DEFAULT = new ShardingItemObservationConvention() {};

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof ShardingItemObservationContext;
    }

    @Override
    default String getName() {
        return "sharding.item";
    }

    @Override
    default String getContextualName(ShardingItemObservationContext context) {
        return context.getItem().jobName() + " item " + context.getItem().item();
    }

    @Override
    default KeyValues getLowCardinalityKeyValues(ShardingItemObservationContext context) {
        Boolean succeeded = context.getSucceeded();
        String outcome = succeeded == null ? "UNKNOWN" : succeeded ? "SUCCESS" : "FAILED";
        ShardingContext item = context.getItem();
        return KeyValues.of("job", item.jobName(), "source", item.source().name(), "outcome", outcome);
    }

    @Override
    default KeyValues getHighCardinalityKeyValues(ShardingItemObservationContext context) {
        ShardingContext item = context.getItem();
        return KeyValues.of(
                "item", String.valueOf(item.item()),
                "fire.time", item.fireTime().toString(),
                "instance", item.instanceId());
    }
}
