package io.shardingjob.core.execution;

/** Runs one item of a fire; the job's own code. An exception marks the item failed and never stops the schedule. */
@FunctionalInterface
public interface ItemExecutor {

    void execute(ShardingContext context) throws Exception;
}
