package io.shardingjob.boot.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a {@code sharding.fire} observation and its key values: low-cardinality {@code job}, {@code source},
 * {@code outcome} (SUCCESS when the last run of every item it ran here succeeded, FAILED otherwise, UNKNOWN while it runs)
 * and {@code chain} (the job whose fire began the chain of jobs this fire belongs to: the job itself unless it follows others),
 * high-cardinality {@code items}, {@code fire.time} and {@code instance}. A bean of this type replaces {@link #DEFAULT};
 * override only what you change.
 */
public interface ShardingFireObservationConvention extends ObservationConvention<ShardingFireObservationContext> {

    /** The names and key values described above. */
    ShardingFireObservationConvention DEFAULT = new ShardingFireObservationConvention() {};

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof ShardingFireObservationContext;
    }

    @Override
    default String getName() {
        return "sharding.fire";
    }

    @Override
    default String getContextualName(ShardingFireObservationContext context) {
        return context.getJob() + " fire";
    }

    @Override
    default KeyValues getLowCardinalityKeyValues(ShardingFireObservationContext context) {
        Boolean succeeded = context.getSucceeded();
        String outcome = succeeded == null ? "UNKNOWN" : succeeded ? "SUCCESS" : "FAILED";
        return KeyValues.of(
                "job",
                context.getJob(),
                "source",
                context.getSource().name(),
                "outcome",
                outcome,
                "chain",
                context.getChain());
    }

    @Override
    default KeyValues getHighCardinalityKeyValues(ShardingFireObservationContext context) {
        return KeyValues.of(
                "items", context.getItems().toString(),
                "fire.time", context.getFireTime().toString(),
                "instance", context.getInstance());
    }
}
