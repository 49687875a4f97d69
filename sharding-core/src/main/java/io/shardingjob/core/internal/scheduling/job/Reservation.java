package io.shardingjob.core.internal.scheduling.job;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One reservation of one item on this instance (see {@link RunMemory#reserve}): the thread running it once it starts,
 * whether it was abandoned, whether its run entered the job's code, and the fires its run settled.
 */
public final class Reservation {

    /** The fires its run settled: its own, and the missed ones it folds in, each once its record is written. */
    private final Set<Instant> settled = ConcurrentHashMap.newKeySet();

    volatile @Nullable Thread thread;
    volatile boolean abandoned;
    volatile boolean inJob;

    public boolean isAbandoned() {
        return abandoned;
    }

    /**
     * Its run settled the fire at {@code fireTime}: ran it as its own, or folded it in and that record is written. The
     * trigger of its own fire, or an audit that read a folded fire unclaimed before its record was written, found the
     * item busy with this very run: nothing it owes (see {@link Reservations#endRun}).
     */
    public void settles(Instant fireTime) {
        settled.add(fireTime);
    }

    Set<Instant> settled() {
        return settled;
    }
}
