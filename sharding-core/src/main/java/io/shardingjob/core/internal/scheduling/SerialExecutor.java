package io.shardingjob.core.internal.scheduling;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Runs a job's coordination tasks one at a time, in order, on a pool shared by all jobs: thousands of jobs share a
 * few threads instead of owning one each, and a job never reacts to two registry events at once.
 */
final class SerialExecutor implements Executor {

    private final Queue<Runnable> tasks = new ArrayDeque<>();

    private final Executor pool;

    private @Nullable Runnable active;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public synchronized void execute(Runnable task) {
        tasks.add(() -> {
            try {
                task.run();
            } finally {
                scheduleNext();
            }
        });
        if (active == null) {
            scheduleNext();
        }
    }

    private synchronized void scheduleNext() {
        active = tasks.poll();
        if (active != null) {
            try {
                pool.execute(active);
            } catch (RejectedExecutionException closed) {
                // The job closed and its pool with it: nothing more to coordinate.
                tasks.clear();
                active = null;
            }
        }
    }
}
