package io.shardingjob.core.internal.scheduling.job;

import java.time.Instant;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The fires this instance knows of, until the ledger's watermark passes them: the ones the scheduler told it of, the
 * ones it finished planning, and the ones its trigger claimed whole ({@link WholeFires}). Its audit looks at these
 * fires, and leaves alone the ones it need not read.
 */
final class LocalFires {

    /** Fires remembered for audits; older ones are covered by the ledger's watermark or its catch-up horizon. */
    static final int REMEMBERED_FIRES = 1024;

    private final NavigableSet<Instant> seen = new ConcurrentSkipListSet<>();
    private final NavigableSet<Instant> planned = new ConcurrentSkipListSet<>();
    private final WholeFires whole = new WholeFires(REMEMBERED_FIRES);

    /**
     * The scheduler told this instance of the fire. Recorded only by {@link OpenClaims#sawFire}, which takes the fire's
     * claims made ahead under the same lock: no claim made ahead is kept for a fire already seen.
     */
    void saw(Instant fireTime) {
        remember(seen, fireTime);
    }

    /** Whether the scheduler told this instance of the fire (and it is not settled yet). */
    boolean hasSeen(Instant fireTime) {
        return seen.contains(fireTime);
    }

    /** The fires the scheduler told this instance of, oldest first, and not settled yet. */
    NavigableSet<Instant> seen() {
        return seen;
    }

    /** This instance finished planning a fire: its claims for it are written, or were refused. */
    void planned(Instant fireTime) {
        remember(planned, fireTime);
    }

    boolean hasPlanned(Instant fireTime) {
        return planned.contains(fireTime);
    }

    WholeFires whole() {
        return whole;
    }

    void forgetThrough(Instant watermark) {
        seen.headSet(watermark, true).clear();
        planned.headSet(watermark, true).clear();
        whole.forgetThrough(watermark);
    }

    private static void remember(NavigableSet<Instant> fires, Instant fireTime) {
        fires.add(fireTime);
        while (fires.size() > REMEMBERED_FIRES) {
            fires.pollFirst();
        }
    }
}
