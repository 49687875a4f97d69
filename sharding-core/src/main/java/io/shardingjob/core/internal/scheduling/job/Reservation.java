package io.shardingjob.core.internal.scheduling.job;

import org.jspecify.annotations.Nullable;

/**
 * One reservation of one item on this instance (see {@link RunMemory#reserve}): the thread running it once it starts,
 * whether it was abandoned, and whether its run entered the job's code.
 */
public final class Reservation {

    volatile @Nullable Thread thread;
    volatile boolean abandoned;
    volatile boolean inJob;

    public boolean isAbandoned() {
        return abandoned;
    }
}
