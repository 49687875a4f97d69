package io.shardingjob.core.internal.scheduling.job;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a job's coordination tasks one at a time, in order, on a pool shared by all jobs: thousands of jobs share a
 * few threads instead of owning one each, and a job never reacts to two registry events at once.
 *
 * <p>A task that talks to ZooKeeper does not wait for the answers on a pool thread: it is {@linkplain #submit
 * submitted} as a step that returns once its requests are sent, with a stage that completes when its work is done.
 * The job's next task starts only then, so the job's tasks still never overlap, while the pool's threads go on with
 * other jobs' tasks meanwhile: one job waiting for a slow server delays no other job.
 */
public final class SerialExecutor implements Executor {

    private final Queue<Supplier<? extends CompletionStage<?>>> tasks = new ArrayDeque<>();
    private final Executor pool;
    private boolean active;

    public SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    /** Runs a task that is done when it returns. */
    @Override
    public void execute(Runnable task) {
        submit(() -> {
            task.run();
            return CompletableFuture.completedFuture(null);
        });
    }

    /**
     * Runs a task whose work goes on after it returns: the job's next task starts once the returned stage completes,
     * normally or not. The stage must complete, as ZooKeeper's answers always do (a lost connection fails them).
     */
    public synchronized void submit(Supplier<? extends CompletionStage<?>> task) {
        tasks.add(task);
        if (!active) {
            scheduleNext();
        }
    }

    /**
     * Submits the task unless it already waits here ({@code queued}): however often it is asked meanwhile, it runs
     * once, and a request made while it runs queues one more run.
     */
    public void submitOnce(AtomicBoolean queued, Supplier<? extends CompletionStage<?>> task) {
        if (queued.compareAndSet(false, true)) {
            submit(() -> {
                queued.set(false);
                return task.get();
            });
        }
    }

    /** The pool the tasks run on: where a task's steps go on after ZooKeeper answered it. */
    public Executor pool() {
        return pool;
    }

    private synchronized void scheduleNext() {
        Supplier<? extends CompletionStage<?>> next = tasks.poll();
        active = next != null;
        if (next != null) {
            try {
                pool.execute(() -> start(next));
            } catch (RejectedExecutionException closed) {
                // The job closed and its pool with it: nothing more to coordinate.
                tasks.clear();
                active = false;
            }
        }
    }

    private void start(Supplier<? extends CompletionStage<?>> task) {
        @Nullable CompletionStage<?> running = null;
        try {
            running = task.get();
        } finally {
            if (running == null) {
                scheduleNext();
            } else {
                running.whenComplete((result, failure) -> scheduleNext());
            }
        }
    }
}
