package io.shardingjob.core.internal.scheduling;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the core hands a job's items on when no caller's thread waits for them (an audit's make-ups and take-overs, an
 * operator's fire, a fire planned after a wait): the item executor the job was built with, unless that one runs a task
 * on the calling thread (a direct executor such as {@code Runnable::run}). Those calls come from coordination threads
 * (the job's scheduler, which drains the ledger's writes, and ZooKeeper's event thread), and an item run there would
 * wait for its own start write, which only that thread can send: with a direct executor the job gets threads of its
 * own, started as needed and ended with the job.
 */
final class ItemThreads implements Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ItemThreads.class);

    private final Executor executor;

    private final @Nullable ExecutorService owned;

    private ItemThreads(Executor executor, @Nullable ExecutorService owned) {
        this.executor = executor;
        this.owned = owned;
    }

    /** The given executor, or threads of the job's own when it runs tasks on the calling thread. */
    static ItemThreads of(Executor given, String jobName) {
        if (!runsInline(given)) {
            return new ItemThreads(given, null);
        }
        log.debug(
                "Job {}: the item executor runs tasks on the calling thread; the job hands items on to its own threads",
                jobName);
        AtomicInteger count = new AtomicInteger();
        ExecutorService own = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "sharding-" + jobName + "-item-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        return new ItemThreads(own, own);
    }

    /** Whether the executor ran a probe task on the calling thread before returning. */
    static boolean runsInline(Executor executor) {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        executor.execute(() -> ranOn.compareAndSet(null, Thread.currentThread()));
        return ranOn.get() == caller;
    }

    @Override
    public void execute(Runnable command) {
        executor.execute(command);
    }

    /** Ends the job's own threads once their items returned; a given executor is its owner's to shut down. */
    @Override
    public void close() {
        if (owned != null) {
            owned.shutdown();
        }
    }
}
