package io.shardingjob.core.internal.scheduling.job;

import io.shardingjob.core.internal.ledger.DueRule;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an item's run here owes when it ends, because fires found the item busy meanwhile: the scheduled fires that
 * did, each planned here under the assignment of {@code epoch} in {@code session}; or, when anything else found it busy
 * (an audit, an operator's fire, a claim made ahead, another assignment or session), a read of the ledger.
 *
 * @param fires the scheduled fires that found the item busy here, oldest first
 * @param readsLedger whether only a read of the ledger tells what the item missed
 */
public record Owed(int item, NavigableSet<Instant> fires, long epoch, long session, boolean readsLedger) {

    public Owed {
        fires = Collections.unmodifiableNavigableSet(new TreeSet<>(fires));
    }

    /** Something found the item busy that only the ledger tells about. */
    static Owed readingLedger(int item) {
        return new Owed(item, new TreeSet<>(), -1, -1, true);
    }

    /** A scheduled fire planned here found the item busy. */
    static Owed byFire(int item, Instant fireTime, long epoch, long session) {
        return new Owed(item, new TreeSet<>(List.of(fireTime)), epoch, session, false);
    }

    /** Both debts: known without a read only when both are, under one assignment and session. */
    Owed and(Owed more) {
        TreeSet<Instant> both = new TreeSet<>(fires);
        both.addAll(more.fires);
        boolean read = readsLedger || more.readsLedger || epoch != more.epoch || session != more.session;
        return new Owed(item, both, epoch, session, read);
    }

    /** Without the fires its run settled itself (see {@link Reservation#settles}). */
    Owed without(Set<Instant> settled) {
        TreeSet<Instant> left = new TreeSet<>(fires);
        left.removeAll(settled);
        return new Owed(item, left, epoch, session, readsLedger);
    }

    /** Whether nothing is owed at all. */
    boolean isNothing() {
        return fires.isEmpty() && !readsLedger;
    }

    /**
     * The fires after the run's own that found the item busy. The run's own fire (an audit's make-up ran it while its
     * trigger found the item busy) and those it folded in (an audit read one before that record was written) are no
     * longer here once it ended (see {@link Reservation#settles}); one at or before it that is, one it failed to fold
     * in or planned out of order, the audits make up if nobody ran it.
     *
     * @param ranFor the fire of the run that ended
     */
    public NavigableSet<Instant> after(Instant ranFor) {
        return fires.tailSet(ranFor, false);
    }

    /**
     * Whether the fires after {@code ranFor} are every scheduled fire up to the latest of them, all planned here under
     * this assignment and session, and no fire at or before {@code ranFor} is owed: then none holds a claim of the item
     * (its owner planned them and claimed nothing for it; no other instance claims an item it does not own, and a claim
     * made later is refused by ZooKeeper), and what the item missed is known without reading the ledger. A fire owed at
     * or before the run's own (one an audit found missed while the item was busy, before this instance's run of a later
     * fire) is left to the audit this then asks for: the drill {@code blackhole-8s-items-stubborn} lost eight such
     * fires of an item that moved here while its old owner still ran it, when they were left to a later audit that
     * nothing asked for.
     *
     * @param ranFor the fire of the run that ended
     */
    public boolean knowsEveryMissedFire(Instant ranFor, long epoch, long session, DueRule due) {
        NavigableSet<Instant> missed = after(ranFor);
        if (readsLedger
                || missed.isEmpty()
                || !fires.headSet(ranFor, true).isEmpty()
                || this.epoch != epoch
                || this.session != session) {
            return false;
        }
        List<Instant> scheduled = due.scheduled(ranFor, missed.last().plusMillis(1), missed.size() + 1);
        return scheduled.size() == missed.size() && missed.containsAll(scheduled);
    }
}
