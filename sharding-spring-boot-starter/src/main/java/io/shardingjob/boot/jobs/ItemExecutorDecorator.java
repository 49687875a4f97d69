package io.shardingjob.boot.jobs;

import io.shardingjob.core.execution.ItemExecutor;

/**
 * Wraps the invocation of each job's method, for every run of its items: in a fire, a take-over or a make-up. Applied
 * in {@code @Order} when the job starts.
 */
@FunctionalInterface
public interface ItemExecutorDecorator {

    ItemExecutor decorate(String job, ItemExecutor invocation);
}
