package io.shardingjob.boot.jobs;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.task.SimpleAsyncTaskExecutorBuilder;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Runs each task on a virtual thread of its own, at most {@code limit} at once; the others wait in a queue, first in
 * first out, as they do in a fixed pool of platform threads. {@code execute} never blocks: the fire that hands its
 * items on, or the item that hands on a fire that had to wait, returns at once however many runs wait.
 *
 * <p>Not Spring's own concurrency limit ({@code SimpleAsyncTaskExecutor#setConcurrencyLimit}): that one makes the
 * submitting thread wait for a free slot, so a fire thread would stall behind busy items, or it rejects the task
 * instead. A task leaves the queue only once a slot is free and starts on a new virtual thread then: the core decides
 * whether a queued run may start at the moment it leaves the queue ({@code RunStart}), so the moment it starts running
 * is that moment, as in the pool.
 */
final class BoundedVirtualExecutor implements Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BoundedVirtualExecutor.class);

    private final int limit;

    /** Starts one virtual thread per task, unbounded: the bound is this class's. */
    private final SimpleAsyncTaskExecutor threads;

    /** The runs waiting for a slot, and how many slots are taken; guarded by {@code this}. */
    private final Queue<Runnable> waiting = new ArrayDeque<>();

    private int running;

    private boolean closed;

    /** The threads running a task now: interrupted on close, as a pool's shutdown interrupts its workers. */
    private final Set<Thread> active = ConcurrentHashMap.newKeySet();

    /**
     * Only on Java 21 or later: Spring's virtual-thread executor refuses to start on an older runtime.
     *
     * @param limit the most tasks that run at once
     */
    BoundedVirtualExecutor(String threadNamePrefix, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("The limit of concurrent runs must be at least 1, not " + limit);
        }
        this.limit = limit;
        this.threads = new SimpleAsyncTaskExecutorBuilder()
                .virtualThreads(true)
                .threadNamePrefix(threadNamePrefix)
                .build();
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (closed) {
                throw new RejectedExecutionException("The executor is closed");
            }
            if (running == limit) {
                waiting.add(task);
                return;
            }
            running++;
        }
        start(task);
    }

    /** Starts {@code task} on a new virtual thread in a slot already taken for it. */
    private void start(Runnable task) {
        try {
            threads.execute(() -> runThenHandOn(task));
        } catch (RuntimeException closedMeanwhile) {
            synchronized (this) {
                running--;
            }
            throw closedMeanwhile;
        }
    }

    /**
     * Runs {@code task}, then gives its slot to the next waiting task, on a thread of its own rather than this one: a
     * virtual thread is not reused, so no thread-local of one run reaches the next.
     */
    private void runThenHandOn(Runnable task) {
        Thread current = Thread.currentThread();
        active.add(current);
        try {
            task.run();
        } catch (RuntimeException ex) {
            // The core's runs catch what their items throw: this is a bug, said once, not a reason to lose the slot.
            log.error("A sharded job task failed", ex);
        } finally {
            active.remove(current);
            Runnable next;
            synchronized (this) {
                next = closed ? null : waiting.poll();
                if (next == null) {
                    running--;
                }
            }
            if (next != null) {
                try {
                    start(next);
                } catch (RuntimeException closedMeanwhile) {
                    // Closed between the poll and the start: the task is dropped, as a pool's shutdown drops its queue.
                }
            }
        }
    }

    /** How many runs it starts at once at most. */
    int limit() {
        return limit;
    }

    /** How many tasks run now. */
    synchronized int running() {
        return running;
    }

    /** How many tasks wait for a slot. */
    synchronized int waiting() {
        return waiting.size();
    }

    /**
     * Takes no more tasks, drops those still waiting and interrupts those running, as a pool's {@code shutdownNow}
     * does. The jobs have closed by then, so nothing runs or waits here any more unless the context never stopped them.
     */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            waiting.clear();
        }
        active.forEach(Thread::interrupt);
        threads.close();
    }
}
