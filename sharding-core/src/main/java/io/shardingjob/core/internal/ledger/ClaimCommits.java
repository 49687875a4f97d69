package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit of owner writes to claims: the items of a fire that end together are written in one multi-operation.
 * Whoever holds the lock writes everything queued so far; writers arriving meanwhile queue up and are written together
 * by the next holder, so a burst of n endings costs a few requests, not n, and no writer waits for a timer.
 */
public final class ClaimCommits {

    private final FireLedger ledger;

    private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

    private final ReentrantLock writing = new ReentrantLock();

    public ClaimCommits(FireLedger ledger) {
        this.ledger = ledger;
    }

    /**
     * Writes the claim at the version it holds.
     *
     * @return the claim as stored now; empty when the claim is no longer this owner's (taken over, or retired)
     * @throws Exception when ZooKeeper could not be reached: whether the write happened is unknown
     */
    public Optional<Claim> write(Claim claim) throws Exception {
        Pending mine = new Pending(claim);
        queue.add(mine);
        writing.lock();
        try {
            if (!mine.done) {
                writeQueued();
            }
        } finally {
            writing.unlock();
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        return Optional.ofNullable(mine.stored);
    }

    private void writeQueued() {
        List<Pending> batch = new ArrayList<>();
        for (Pending next = queue.poll(); next != null; next = queue.poll()) {
            batch.add(next);
        }
        Map<Slot, Pending> bySlot = new HashMap<>();
        batch.forEach(pending -> bySlot.put(slot(pending.claim), pending));
        try {
            FireLedger.Written written =
                    ledger.update(batch.stream().map(pending -> pending.claim).toList());
            written.written().forEach(stored -> bySlot.get(slot(stored)).stored = stored);
        } catch (Exception ex) {
            batch.forEach(pending -> pending.failure = ex);
        }
        batch.forEach(pending -> pending.done = true);
    }

    private static Slot slot(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }

    private static final class Pending {

        final Claim claim;

        volatile boolean done;

        volatile Claim stored;

        volatile Exception failure;

        Pending(Claim claim) {
            this.claim = claim;
        }
    }
}
