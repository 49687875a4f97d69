package io.shardingjob.boot.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fires handed off during one pass of the {@link FireTimer}, handed to the fire pool together once the pass ran
 * every due task: as many drains of one shared queue as the pool has threads (or fires, if fewer), so that each fire
 * thread that wakes takes fires until none is left, and none waits for a wake-up of its own. A fire handed off outside
 * a pass (a manual fire) goes to the pool at once.
 *
 * <p>Only the thread of the pass in progress touches the held fires; the timer runs one pass at a time.
 */
final class FireBatch {

    // The timer's category, which operators' logging levels name: the batch is the timer's hand-off, split out to read.
    private static final Logger log = LoggerFactory.getLogger(FireTimer.class);

    private final Executor fires;

    private final int parallelism;

    /** The thread passing over the due tasks, whose hand-offs are held; only it touches {@link #held}. */
    private volatile @Nullable Thread collecting;

    private final List<Runnable> held = new ArrayList<>();

    /**
     * @param fires the fire pool
     * @param parallelism how many fires the pool runs at once: how many drains a batch gets at most
     */
    FireBatch(Executor fires, int parallelism) {
        this.fires = fires;
        this.parallelism = Math.max(1, parallelism);
    }

    /**
     * Holds the fire for the batch when the pass in progress hands it off, gives it to the pool at once otherwise.
     *
     * @throws RejectedExecutionException when the fire pool no longer takes fires
     */
    void handOff(Runnable fire) {
        if (Thread.currentThread() == collecting) {
            held.add(fire);
        } else {
            fires.execute(fire);
        }
    }

    /** From now until {@link #handOn()}, what the calling thread (the pass) hands off is held. */
    void collect() {
        collecting = Thread.currentThread();
    }

    /** Ends the collecting and hands what was held to the pool as one batch. */
    void handOn() {
        collecting = null;
        if (held.isEmpty()) {
            return;
        }
        Queue<Runnable> batch = new ConcurrentLinkedQueue<>(held);
        int handed = held.size();
        held.clear();
        int drains = Math.min(handed, parallelism);
        int taken = 0;
        try {
            for (; taken < drains; taken++) {
                fires.execute(() -> drain(batch));
            }
        } catch (RejectedExecutionException ex) {
            // A drain already taken runs every fire; with none taken the pool is shutting down.
            if (taken == 0) {
                log.warn("{} fires not started: the fire pool is shutting down", handed);
            }
        }
    }

    private static void drain(Queue<Runnable> batch) {
        for (Runnable fire = batch.poll(); fire != null; fire = batch.poll()) {
            try {
                fire.run();
            } catch (RuntimeException ex) {
                log.error("A fire failed to start", ex);
            }
        }
    }
}
