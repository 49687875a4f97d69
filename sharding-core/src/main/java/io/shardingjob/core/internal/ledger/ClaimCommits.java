package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Group commit of owner writes to claims. A write is queued and the caller goes on (an item's thread returns to its
 * pool at once); one drain at a time, on the given executor, writes everything queued so far in as few
 * multi-operations as their size allows, then drains again if more arrived meanwhile. The end of an item whose fire
 * still runs other items here waits for them at most {@link #LINGER} (Kafka's {@code linger.ms}): the last of them
 * drains at once, so the items of a fire that end together cost one request, not one each. The request that records
 * the last ends of a fire also creates this instance's claims of the next fire, as {@link Ahead} says.
 */
public final class ClaimCommits {

    private final FireLedger ledger;

    /** How long an end waits for the other items of its fire to end here, so that they are written together. */
    static final long LINGER_MILLIS = 5;

    private final ScheduledExecutorService drainer;

    private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean draining = new AtomicBoolean();

    private final Ahead ahead;

    /** Which claims of a next fire go with the last ends of a fire, and what becomes of them. */
    public interface Ahead {

        /** None: every fire claims its items at its own instant. */
        Ahead NONE = new Ahead() {
            @Override
            public List<Claim> claimsAfter(List<Claim> lastEnds, List<Claim> ends) {
                return List.of();
            }

            @Override
            public void claimed(Instant fireTime, FireLedger.Claimed claimed) {}
        };

        /**
         * The claims to create with these ends, all of one fire; empty for none.
         *
         * @param lastEnds the ends that are the last of their fire on this instance
         * @param ends every end written with them: their items are free once it is answered
         */
        List<Claim> claimsAfter(List<Claim> lastEnds, List<Claim> ends);

        /** What came of the claims: called only when the request was answered. */
        void claimed(Instant fireTime, FireLedger.Claimed claimed);
    }

    public ClaimCommits(FireLedger ledger, ScheduledExecutorService drainer) {
        this(ledger, drainer, Ahead.NONE);
    }

    public ClaimCommits(FireLedger ledger, ScheduledExecutorService drainer, Ahead ahead) {
        this.ledger = ledger;
        this.drainer = drainer;
        this.ahead = ahead;
    }

    /**
     * Queues a write of the claim at the version it holds.
     *
     * @return completes with the claim as stored now, or empty when the claim is no longer this owner's (taken over,
     *     or retired); completes exceptionally when ZooKeeper could not be reached: whether the write happened is then
     *     unknown
     */
    public CompletableFuture<Optional<Claim>> writeLater(Claim claim) {
        return enqueue(new Pending(claim, false), true);
    }

    /**
     * Queues the end of an item's run, like {@link #writeLater(Claim)}. Unless it is the last end of its fire here, it
     * waits up to {@link #LINGER_MILLIS} for more ends to join it; the last one drains at once, with the claims of the
     * next fire.
     */
    public CompletableFuture<Optional<Claim>> endLater(Claim claim, boolean lastOfItsFire) {
        return enqueue(new Pending(claim, lastOfItsFire), lastOfItsFire);
    }

    private CompletableFuture<Optional<Claim>> enqueue(Pending pending, boolean drainNow) {
        queue.add(pending);
        if (drainNow) {
            scheduleDrain();
        } else {
            try {
                drainer.schedule(this::scheduleDrain, LINGER_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException rejected) {
                scheduleDrain();
            }
        }
        return pending.result;
    }

    /** Writes the claim and waits for the answer: for a retry, which must not start unless the claim is still ours. */
    public Optional<Claim> write(Claim claim) throws Exception {
        try {
            return writeLater(claim).join();
        } catch (CompletionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    private void scheduleDrain() {
        if (draining.compareAndSet(false, true)) {
            try {
                drainer.execute(this::drain);
            } catch (RuntimeException rejected) {
                // The executor is shutting down: write on the caller's thread rather than lose the writes.
                drain();
            }
        }
    }

    /** Writes until nothing is queued; a writer that queues after the last look starts the next drain itself. */
    private void drain() {
        do {
            try {
                List<Pending> batch = new ArrayList<>();
                for (Pending next = queue.poll(); next != null; next = queue.poll()) {
                    batch.add(next);
                }
                if (!batch.isEmpty()) {
                    write(batch);
                }
            } finally {
                draining.set(false);
            }
        } while (!queue.isEmpty() && draining.compareAndSet(false, true));
    }

    private void write(List<Pending> batch) {
        Map<Slot, Pending> bySlot = new HashMap<>();
        batch.forEach(pending -> bySlot.put(slot(pending.claim), pending));
        List<Claim> next = claimsAhead(batch);
        Instant nextFire = next.isEmpty() ? Instant.EPOCH : next.get(0).fireTime();
        try {
            FireLedger.Committed committed =
                    ledger.commit(batch.stream().map(pending -> pending.claim).toList(), nextFire, next);
            if (!next.isEmpty()) {
                // Kept before the ends are answered: a fire waiting for its ends is over only once the next is ready.
                ahead.claimed(nextFire, committed.claimed());
            }
            FireLedger.Written written = committed.written();
            written.written()
                    .forEach(stored -> bySlot.remove(slot(stored)).result.complete(Optional.of(stored)));
            written.lost().forEach(lost -> bySlot.remove(slot(lost)).result.complete(Optional.empty()));
            bySlot.values().forEach(pending -> pending.result.complete(Optional.empty()));
        } catch (Exception ex) {
            // Claims ahead that reached the server anyway name this session: the next fire finds them as its own.
            batch.forEach(pending -> pending.result.completeExceptionally(ex));
        }
    }

    private List<Claim> claimsAhead(List<Pending> batch) {
        List<Claim> lastEnds = batch.stream()
                .filter(pending -> pending.lastOfFire)
                .map(pending -> pending.claim)
                .toList();
        if (lastEnds.isEmpty()) {
            return List.of();
        }
        try {
            return ahead.claimsAfter(
                    lastEnds, batch.stream().map(pending -> pending.claim).toList());
        } catch (RuntimeException ex) {
            // The ends are written all the same; the next fire claims its items at its own instant.
            return List.of();
        }
    }

    private static Slot slot(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }

    private record Pending(Claim claim, boolean lastOfFire, CompletableFuture<Optional<Claim>> result) {

        Pending(Claim claim, boolean lastOfFire) {
            this(claim, lastOfFire, new CompletableFuture<>());
        }
    }
}
