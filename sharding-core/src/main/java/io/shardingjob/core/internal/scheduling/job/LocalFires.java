package io.shardingjob.core.internal.scheduling.job;

import java.time.Instant;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The fires this instance knows of, until the ledger's watermark passes them: the ones the scheduler told it of, the
 * ones it finished planning, and the ones its trigger claimed whole. Its audit looks at these fires, and leaves alone the
 * ones it need not read.
 */
final class LocalFires {

    /** Fires remembered for audits; older ones are covered by the ledger's watermark or its catch-up horizon. */
    static final int REMEMBERED_FIRES = 1024;

    private final NavigableSet<Instant> seen = new ConcurrentSkipListSet<>();
    private final NavigableSet<Instant> planned = new ConcurrentSkipListSet<>();

    /**
     * The fires whose trigger won a claim for every item this instance owned, under which assignment and session: until
     * the assignment or the session changes, or one of their runs here gives its claim up, an audit of this instance has
     * nothing to do in them, and neither reads them nor looks at them again once they are late.
     */
    private final NavigableMap<Instant, Whole> whole = new ConcurrentSkipListMap<>();

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

    /** The trigger won every item this instance owns under the assignment of {@code epoch}, in {@code session}. */
    void claimedWhole(Instant fireTime, long epoch, long session) {
        whole.put(fireTime, new Whole(epoch, session));
        while (whole.size() > REMEMBERED_FIRES) {
            whole.pollFirstEntry();
        }
    }

    /** A run of the fire here gave its claim up (released to the item's next owner): its audit must look at it. */
    void notWhole(Instant fireTime) {
        whole.remove(fireTime);
    }

    boolean isWhole(Instant fireTime, long epoch, long session) {
        return new Whole(epoch, session).equals(whole.get(fireTime));
    }

    void forgetThrough(Instant watermark) {
        seen.headSet(watermark, true).clear();
        planned.headSet(watermark, true).clear();
        whole.headMap(watermark, true).clear();
    }

    private static void remember(NavigableSet<Instant> fires, Instant fireTime) {
        fires.add(fireTime);
        while (fires.size() > REMEMBERED_FIRES) {
            fires.pollFirst();
        }
    }

    private record Whole(long epoch, long session) {}
}
