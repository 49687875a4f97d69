package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where one job's runs are handed to an item executor, the user's pool: a fire's runs, and the make-ups and take-overs
 * of its audit. The one place that decides from which thread a run is handed on, and what becomes of a run the
 * executor does not take.
 *
 * <p>Never from ZooKeeper's event thread or the job's coordination loop. An executor that, once full, runs a task on
 * the thread handing it over ({@code ThreadPoolExecutor.CallerRunsPolicy}) would run the item there, and the item's
 * start write waits for an answer that only ZooKeeper's event thread delivers, or a group commit that drains on the
 * coordination scheduler: the client, or the job, would answer nothing again. What ZooKeeper or the coordination loop
 * completes goes on on the job's hand-off thread ({@link #thread()}), which hands the runs on: the job's tasks one at a
 * time, in order, on a small pool of threads of ours that all jobs share (as many as the machine has cores, at least
 * two), kept only while hand-offs come: thousands of jobs' fires ending together queue there rather than start a thread
 * each. A caller-runs executor runs there what it cannot queue, and the job's later hand-offs wait behind that run, as
 * the policy means them to; other jobs' wait only while every thread of the pool runs such an item, and go on as soon
 * as one ends. A fire planned at once on its caller's thread hands its runs on from there.
 *
 * <p>A run the executor refuses ({@link RejectedExecutionException}: its queue bounded and full, or it was shut down)
 * is given up as a run released while it waited in the queue is ({@link ItemRunner#handOn}): its claim is handed on
 * for the item's owner to run as the fire's own run (this instance's audit takes it over while it owns the item), and
 * its item is freed here. Kept, both would wait for a run that never comes.
 */
public final class ItemHandOff {

    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Threads of the shared pool: a hand-off only hands a run on, so the cores bound what runs at once. */
    private static final int POOL_THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

    /**
     * The threads every job's hand-offs run on, each gone after a minute with nothing to do; its queue unbounded, so it
     * never refuses a task, and never shut down: a hand-off still owed after its job closed (a report, a run given up)
     * must still run.
     */
    private static final ThreadPoolExecutor SHARED = sharedPool();

    private static ThreadPoolExecutor sharedPool() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                POOL_THREADS, POOL_THREADS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "sharding-hand-off-" + THREADS.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private final ItemRunner items;
    private final SerialExecutor thread = new SerialExecutor(SHARED);

    public ItemHandOff(ItemRunner items) {
        this.items = items;
    }

    /**
     * The job's hand-off thread: where what ZooKeeper's event thread or the coordination loop completed goes on when it
     * leads to an item executor, such as a fire planned after a wait, or an audit's next step.
     */
    public Executor thread() {
        return thread;
    }

    /**
     * Hands a claim the audit won (a make-up, a take-over, one of this session's own) to the executor. Called on the
     * hand-off thread.
     *
     * @param origin how the claim's fire was asked for, as the audit read it: the job parameter the item runs with
     * @param onStart what to do once the run's start is written, on its thread before the job's code; not done for a
     *     run that does not start
     * @return completes once the run's end, or its claim given up, is recorded and the item is free here again
     */
    public CompletableFuture<Void> handOnClaimed(
            Executor executor,
            ItemExecutor job,
            Claim claim,
            Reservation reservation,
            FireOrigin origin,
            Runnable onStart) {
        ItemRun run = items.claimedRun(claim, reservation, origin);
        run.whenStarted().thenRun(onStart);
        return items.handOn(executor, thread, job, run).thenCompose(ItemRunner.Run::recorded);
    }
}
