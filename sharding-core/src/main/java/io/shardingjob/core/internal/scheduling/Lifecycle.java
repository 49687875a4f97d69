package io.shardingjob.core.internal.scheduling;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where one job is in its life on this instance: {@code LATENT -> STARTED -> STOPPING -> CLOSED}, each step taken with
 * {@code compareAndSet} so that of two threads starting or closing the job one does it. The runtime moves it; the
 * parts only read whether the job is started.
 */
final class Lifecycle {

    private enum State {
        LATENT,
        STARTED,
        STOPPING,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final CountDownLatch closed = new CountDownLatch(1);

    /** Started and not stopping: the job asks for work. */
    boolean isStarted() {
        return state.get() == State.STARTED;
    }

    boolean start() {
        return state.compareAndSet(State.LATENT, State.STARTED);
    }

    /** Whether this call closed a job that never started: there is nothing to stop then, only parts to close. */
    boolean closeUnstarted() {
        return state.compareAndSet(State.LATENT, State.CLOSED);
    }

    /** Whether this call began stopping a started job: false when another close did, or does. */
    boolean stop() {
        return state.compareAndSet(State.STARTED, State.STOPPING);
    }

    /** The job stopped: its runs are over, and its parts are closing. */
    void stopped() {
        state.set(State.CLOSED);
    }

    void closeDone() {
        closed.countDown();
    }

    /** Waits for the close under way on another thread; an interrupt is kept for the caller, not obeyed. */
    void awaitClosed() {
        boolean interrupted = false;
        while (true) {
            try {
                closed.await();
                break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
