package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
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
 * drains at once, so the items of a fire that end together cost one request, not one each.
 */
public final class ClaimCommits {

    private final FireLedger ledger;

    /** How long an end waits for the other items of its fire to end here, so that they are written together. */
    static final long LINGER_MILLIS = 5;

    private final ScheduledExecutorService drainer;

    private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean draining = new AtomicBoolean();

    public ClaimCommits(FireLedger ledger, ScheduledExecutorService drainer) {
        this.ledger = ledger;
        this.drainer = drainer;
    }

    /**
     * Queues a write of the claim at the version it holds.
     *
     * @return completes with the claim as stored now, or empty when the claim is no longer this owner's (taken over,
     *     or retired); completes exceptionally when ZooKeeper could not be reached: whether the write happened is then
     *     unknown
     */
    public CompletableFuture<Optional<Claim>> writeLater(Claim claim) {
        return writeLater(claim, true);
    }

    /**
     * Queues a write, like {@link #writeLater(Claim)}; unless {@code drainNow}, it waits up to {@link #LINGER_MILLIS}
     * for more writes to join it.
     */
    public CompletableFuture<Optional<Claim>> writeLater(Claim claim, boolean drainNow) {
        Pending pending = new Pending(claim);
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
        try {
            FireLedger.Written written =
                    ledger.update(batch.stream().map(pending -> pending.claim).toList());
            written.written()
                    .forEach(stored -> bySlot.remove(slot(stored)).result.complete(Optional.of(stored)));
            written.lost().forEach(lost -> bySlot.remove(slot(lost)).result.complete(Optional.empty()));
            bySlot.values().forEach(pending -> pending.result.complete(Optional.empty()));
        } catch (Exception ex) {
            batch.forEach(pending -> pending.result.completeExceptionally(ex));
        }
    }

    private static Slot slot(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }

    private record Pending(Claim claim, CompletableFuture<Optional<Claim>> result) {

        Pending(Claim claim) {
            this(claim, new CompletableFuture<>());
        }
    }
}
