package io.shardingjob.core.internal.scheduling.fire;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The thread that called a synchronous fire, as the executor of that fire's items: tasks handed to it are queued, and
 * the caller runs them, one after another, while it waits for the fire's report.
 *
 * <p>A direct executor ({@code Runnable::run}) would not do: a fire's items are handed on from whichever thread
 * completed its claims, often ZooKeeper's event thread or the coordination pool, so they would run there, and a
 * retry's claim write would wait for an answer that the very thread it blocks must deliver. This keeps what a caller
 * of {@code fire(job)} expects, its items on its own thread, without lending them a coordination thread.
 */
public final class CallingThread implements Executor {

    private static final Runnable WAKE_UP = () -> {};
    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();

    /** Guarded by this. */
    private boolean done;

    /** Whether the executor runs a task on the thread that hands it over, before {@code execute} returns. */
    public static boolean runsTasksOnTheCallingThread(Executor executor) {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        executor.execute(() -> ranOn.compareAndSet(null, Thread.currentThread()));
        return ranOn.get() == caller;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (!done) {
                tasks.add(task);
                return;
            }
        }
        // Nothing of the fire is left once its report completed; should something come late, it must not be lost.
        ForkJoinPool.commonPool().execute(task);
    }

    /**
     * Runs the tasks handed to this executor until the fire completes, and returns its result. An interrupt does not
     * stop it (the fire's claims are held until its items ran); it is kept for the caller.
     */
    public <T> T runUntil(CompletableFuture<T> fire) {
        fire.whenComplete((result, failure) -> tasks.add(WAKE_UP));
        boolean interrupted = false;
        try {
            while (!fire.isDone()) {
                try {
                    tasks.take().run();
                } catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            synchronized (this) {
                done = true;
            }
            for (Runnable late = tasks.poll(); late != null; late = tasks.poll()) {
                late.run();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            return fire.join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof RuntimeException cause ? cause : failed;
        }
    }
}
