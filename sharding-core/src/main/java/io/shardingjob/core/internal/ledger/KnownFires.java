package io.shardingjob.core.internal.ledger;

import java.time.Instant;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The fires whose node this instance created or found, so that its next claims in them skip creating it. Bounded: the
 * oldest are forgotten (a claim in a fire forgotten here costs one more request, which finds the node), since only the
 * leader retires fires and forgets them then.
 */
final class KnownFires {

    /** Fires remembered: far more than are ever open at once. */
    private static final int REMEMBERED = 4096;

    private final NavigableSet<Instant> fires = new ConcurrentSkipListSet<>();

    boolean contains(Instant fireTime) {
        return fires.contains(fireTime);
    }

    void add(Instant fireTime) {
        if (fires.add(fireTime) && fires.size() > REMEMBERED) {
            fires.pollFirst();
        }
    }

    void remove(Instant fireTime) {
        fires.remove(fireTime);
    }
}
