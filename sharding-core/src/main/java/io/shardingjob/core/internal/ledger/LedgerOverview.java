package io.shardingjob.core.internal.ledger;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an audit or the keeper reads first of a job's ledger: its node's watermark and the fires it lists, oldest first.
 *
 * @param watermark the fire every earlier fire is settled by, but for {@code stillOpen}, or the epoch when none is
 *     known
 * @param stillOpen fires at or before the watermark still open ({@link Watermark}; an operator's re-run lists its fire
 *     too, {@link FireReruns}): audits read them as they read the fires after the watermark, and they are never retired
 *     while listed
 * @param version the ledger node's data version as read, for the keeper's versioned writes; -1 when not read
 */
public record LedgerOverview(Instant watermark, List<Instant> fires, SortedSet<Instant> stillOpen, int version) {

    public LedgerOverview {
        stillOpen = Collections.unmodifiableSortedSet(new TreeSet<>(stillOpen));
    }

    /** The fires an audit reads: the ones after the watermark up to {@code now}, and the ones still open. */
    public SortedSet<Instant> toRead(Instant now) {
        SortedSet<Instant> read = new TreeSet<>(stillOpen);
        fires.stream()
                .filter(fireTime -> fireTime.isAfter(watermark) && !fireTime.isAfter(now))
                .forEach(read::add);
        return read;
    }
}
