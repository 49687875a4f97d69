package io.shardingjob.core.internal.scheduling.job;

import java.time.Instant;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The fires whose trigger won a claim for every item this instance owned, under which assignment and session: until
 * the assignment or the session changes, or one of their runs here gives its claim up, an audit of this instance has
 * nothing to do in them, and neither reads them nor looks at them again once they are late.
 */
final class WholeFires {

    private final NavigableMap<Instant, Whole> fires = new ConcurrentSkipListMap<>();
    private final int remembered;

    WholeFires(int remembered) {
        this.remembered = remembered;
    }

    /** The trigger won every item this instance owns under the assignment of {@code epoch}, in {@code session}. */
    void claimed(Instant fireTime, long epoch, long session) {
        fires.put(fireTime, new Whole(epoch, session));
        while (fires.size() > remembered) {
            fires.pollFirstEntry();
        }
    }

    /** A run of the fire here gave its claim up (released to the item's next owner): its audit must look at it. */
    void released(Instant fireTime) {
        fires.remove(fireTime);
    }

    boolean isWhole(Instant fireTime, long epoch, long session) {
        return new Whole(epoch, session).equals(fires.get(fireTime));
    }

    void forgetThrough(Instant watermark) {
        fires.headMap(watermark, true).clear();
    }

    private record Whole(long epoch, long session) {}
}
