package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Group commit of owner writes to claims. A write is queued and the caller goes on (an item's thread returns to its
 * pool at once); one commit at a time sends everything queued so far in as few multi-operations as their size allows,
 * without a thread waiting for the answer (the executor only hands the answers on), then sends what arrived meanwhile.
 * The end of an item whose fire still runs other items here lingers (Kafka's {@code linger.ms}) until no other end has
 * come for {@link #LINGER_MILLIS}, at most {@link #MAX_LINGER_MILLIS}: the items of a fire that end one after another
 * (a thousand short items on a pool of sixteen threads) are written together, and the last end of the fire drains at
 * once. The request that records the last ends of a fire also creates this instance's claims of the next fire, as
 * {@link Ahead} says.
 */
public final class GroupCommit {

    private final ClaimWrites claims;

    /** How long after the latest end the lingering ends are written, when no other end came meanwhile. */
    static final long LINGER_MILLIS = 5;

    /**
     * The longest an end lingers however steadily others keep coming: until it is written, a crash of this instance
     * has its item run again elsewhere.
     */
    static final long MAX_LINGER_MILLIS = 50;

    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);

    private static final long MAX_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_LINGER_MILLIS);

    /** Whether a look at the lingering ends is scheduled. */
    private final AtomicBoolean lingering = new AtomicBoolean();

    /** When the latest end that lingers came, and when the first of them did. */
    private volatile long lastEndNanos;

    private volatile long lingerSinceNanos;

    private final ScheduledExecutorService drainer;

    private final Queue<Pending> queue = new ConcurrentLinkedQueue<>();

    private final AtomicBoolean draining = new AtomicBoolean();

    private final Ahead ahead;

    /** Which claims of a next fire go with the last ends of a fire, and what becomes of them. */
    public interface Ahead {

        /** None: every fire claims its items at its own instant. */
        Ahead NONE = new Ahead() {
            @Override
            public Next claimsAfter(List<Claim> lastEnds, List<Claim> ends) {
                return Next.NONE;
            }

            @Override
            public void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed) {}
        };

        /**
         * The claims to create with these ends, all of one fire, and how to treat the fire nodes; no claims for none.
         *
         * @param lastEnds the ends that are the last of their fire on this instance
         * @param ends every end written with them: their items are free once it is answered
         */
        Next claimsAfter(List<Claim> lastEnds, List<Claim> ends);

        /**
         * Claims of the next fire, and how the request treats the fire nodes.
         *
         * @param assignmentVersion the version of the assignment node the claims were decided under; -1 when unknown
         */
        record Next(List<Claim> claims, FireNodes fireNodes, int assignmentVersion) {

            public static final Next NONE = new Next(List.of(), FireNodes.AS_NEEDED, -1);
        }

        /**
         * What came of the claims, once the request was answered or failed.
         *
         * @param requested the claims {@link #claimsAfter} gave
         * @param claimed what came of them; null when the server did not answer (whether they were created is then
         *     unknown: any that were name this session, and its next fire or audit finds them)
         */
        void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed);
    }

    public GroupCommit(ClaimWrites claims, ScheduledExecutorService drainer) {
        this(claims, drainer, Ahead.NONE);
    }

    public GroupCommit(ClaimWrites claims, ScheduledExecutorService drainer, Ahead ahead) {
        this.claims = claims;
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
     * lingers for more ends to join it; the last one drains at once, with the claims of the next fire.
     */
    public CompletableFuture<Optional<Claim>> endLater(Claim claim, boolean lastOfItsFire) {
        return enqueue(new Pending(claim, lastOfItsFire), lastOfItsFire);
    }

    /**
     * Queues the write of a run's start, like {@link #writeLater(Claim)}: the starts of the items that leave their queue
     * together go in one request. Unless it is the last of them, it lingers for the others as an end does.
     *
     * @param lastOfTogether whether no other run handed on with it is still to leave its queue
     * @param assignmentVersion the version of the assignment the start was decided under: the write fails, with
     *     {@link AssignmentGuard.Moved}, once a newer one was written
     */
    public CompletableFuture<Optional<Claim>> startLater(Claim started, boolean lastOfTogether, int assignmentVersion) {
        return enqueue(new Pending(started, false, assignmentVersion), lastOfTogether);
    }

    /** Sends what is queued now, without waiting for it to linger: starts written ahead of their runs. */
    public void flush() {
        scheduleDrain();
    }

    private CompletableFuture<Optional<Claim>> enqueue(Pending pending, boolean drainNow) {
        queue.add(pending);
        if (drainNow) {
            scheduleDrain();
        } else {
            long now = System.nanoTime();
            lastEndNanos = now;
            if (lingering.compareAndSet(false, true)) {
                lingerSinceNanos = now;
                lookAgainIn(LINGER_NANOS);
            }
        }
        return pending.result;
    }

    /** Drains once the ends stopped coming for a linger, or the first of them waited the longest it may. */
    private void lookAtLingering() {
        long now = System.nanoTime();
        long quiet = now - lastEndNanos;
        long waited = now - lingerSinceNanos;
        if (quiet >= LINGER_NANOS || waited >= MAX_LINGER_NANOS) {
            lingering.set(false);
            scheduleDrain();
        } else {
            lookAgainIn(Math.min(LINGER_NANOS - quiet, MAX_LINGER_NANOS - waited));
        }
    }

    private void lookAgainIn(long nanos) {
        try {
            drainer.schedule(this::lookAtLingering, nanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            lingering.set(false);
            scheduleDrain();
        }
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
            onDrainer(this::sendNext);
        }
    }

    /**
     * Sends everything queued in one commit, without waiting for it; once it is answered, sends what queued meanwhile.
     * One commit of this job is in flight at a time, so ends that come while one is on its way go together in the next.
     */
    private void sendNext() {
        List<Pending> batch = new ArrayList<>();
        for (Pending next = queue.poll(); next != null; next = queue.poll()) {
            batch.add(next);
        }
        if (batch.isEmpty()) {
            draining.set(false);
            // A writer that queued after the last look, while this drain still counted as running, is sent now.
            if (!queue.isEmpty() && draining.compareAndSet(false, true)) {
                onDrainer(this::sendNext);
            }
            return;
        }
        write(batch).whenComplete((done, failure) -> onDrainer(this::sendNext));
    }

    /** On the drainer; on the calling thread once it shuts down, rather than lose the writes. */
    private void onDrainer(Runnable task) {
        try {
            drainer.execute(task);
        } catch (RuntimeException rejected) {
            task.run();
        }
    }

    /** Sends one commit; what it came to is handed to the waiting writers on the drainer, never on ZooKeeper's thread. */
    private CompletableFuture<Void> write(List<Pending> queued) {
        Ahead.Next following = claimsAhead(queued);
        int newest = newestDecision(queued, following);
        Set<Slot> guarded = new HashSet<>();
        List<Pending> batch = decidedUnder(newest, queued, guarded);
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        AssignmentGuard guard = newest == UNGUARDED ? AssignmentGuard.NONE : new AssignmentGuard(newest, guarded);
        Map<Slot, Pending> bySlot = new HashMap<>();
        batch.forEach(pending -> bySlot.put(slot(pending.claim), pending));
        List<Claim> next = following.claims().stream()
                .map(claim -> following.assignmentVersion() == newest ? claim : AssignmentGuard.unstarted(claim))
                .toList();
        Instant nextFire = next.isEmpty() ? Instant.EPOCH : next.get(0).fireTime();
        CompletableFuture<Void> answered = new CompletableFuture<>();
        claims.commitAsync(
                        batch.stream().map(pending -> pending.claim).toList(),
                        nextFire,
                        next,
                        following.fireNodes(),
                        guard)
                .whenComplete((committed, failure) -> onDrainer(() -> {
                    try {
                        if (failure != null) {
                            if (!next.isEmpty()) {
                                ahead.claimed(nextFire, next, null);
                            }
                            Throwable cause =
                                    failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
                            batch.forEach(pending -> pending.result.completeExceptionally(cause));
                            return;
                        }
                        if (!next.isEmpty()) {
                            // Kept before the ends are answered: a fire waiting for its ends is over once the next is
                            // ready.
                            ahead.claimed(nextFire, next, committed.claimed());
                        }
                        ClaimWrites.Written written = committed.written();
                        written.written()
                                .forEach(stored ->
                                        bySlot.remove(slot(stored)).result.complete(Optional.of(stored)));
                        written.lost()
                                .forEach(
                                        lost -> bySlot.remove(slot(lost)).result.complete(Optional.empty()));
                        written.moved()
                                .forEach(moved -> bySlot.remove(slot(moved))
                                        .result
                                        .completeExceptionally(new AssignmentGuard.Moved(moved)));
                        bySlot.values().forEach(pending -> pending.result.complete(Optional.empty()));
                    } finally {
                        answered.complete(null);
                    }
                }));
        return answered;
    }

    /**
     * The version of the assignment a request checks: the newest its starts and its claims made ahead were decided
     * under. A start decided under an older one would be refused by the check, so it is refused at once; a claim made
     * ahead under an older one goes reserved, its start left to its run.
     */
    private static int newestDecision(List<Pending> queued, Ahead.Next following) {
        return Math.max(
                queued.stream().mapToInt(Pending::guard).max().orElse(UNGUARDED),
                following.claims().isEmpty() ? UNGUARDED : following.assignmentVersion());
    }

    /**
     * The queued writes to send under the check of {@code newest}, their slots added to {@code guarded} for the starts;
     * the starts decided under another version are refused at once.
     */
    private static List<Pending> decidedUnder(int newest, List<Pending> queued, Set<Slot> guarded) {
        List<Pending> batch = new ArrayList<>(queued.size());
        for (Pending pending : queued) {
            if (pending.guard == UNGUARDED) {
                batch.add(pending);
            } else if (pending.guard == newest) {
                batch.add(pending);
                guarded.add(slot(pending.claim));
            } else {
                pending.result.completeExceptionally(new AssignmentGuard.Moved(pending.claim));
            }
        }
        return batch;
    }

    private Ahead.Next claimsAhead(List<Pending> batch) {
        List<Claim> lastEnds = batch.stream()
                .filter(pending -> pending.lastOfFire)
                .map(pending -> pending.claim)
                .toList();
        if (lastEnds.isEmpty()) {
            return Ahead.Next.NONE;
        }
        try {
            return ahead.claimsAfter(
                    lastEnds, batch.stream().map(pending -> pending.claim).toList());
        } catch (RuntimeException ex) {
            // The ends are written all the same; the next fire claims its items at its own instant.
            return Ahead.Next.NONE;
        }
    }

    private static Slot slot(Claim claim) {
        return new Slot(claim.item(), claim.fireTime());
    }

    /** The guard of a write that needs none. */
    private static final int UNGUARDED = -1;

    /**
     * One queued write.
     *
     * @param guard the assignment version a start was decided under, or {@link #UNGUARDED}
     */
    private record Pending(Claim claim, boolean lastOfFire, int guard, CompletableFuture<Optional<Claim>> result) {

        Pending(Claim claim, boolean lastOfFire) {
            this(claim, lastOfFire, UNGUARDED, new CompletableFuture<>());
        }

        Pending(Claim claim, boolean lastOfFire, int guard) {
            this(claim, lastOfFire, guard, new CompletableFuture<>());
        }
    }
}
