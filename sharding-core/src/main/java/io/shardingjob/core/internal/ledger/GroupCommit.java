package io.shardingjob.core.internal.ledger;

import static io.shardingjob.core.internal.ledger.CommitBatches.UNGUARDED;

import io.shardingjob.core.internal.ledger.CommitBatches.Pending;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Group commit of owner writes to claims. A write is queued and the caller goes on (an item that ended frees its
 * thread at once); one commit at a time sends everything queued so far in as few multi-operations as their size allows,
 * without a thread waiting for the answer (the executor only hands the answers on), then sends what arrived meanwhile.
 * The end of an item whose fire still runs other items here lingers (Kafka's {@code linger.ms}) until no other end has
 * come for {@link #LINGER_MILLIS}, at most {@link #MAX_LINGER_MILLIS}: the items of a fire that end one after another
 * (a thousand short items on a pool of sixteen threads) are written together, and the last end of the fire drains at
 * once. The request that records the last ends of a fire also creates this instance's claims of the next fire, as
 * {@link Ahead} says. This class decides when to send; {@link CommitBatches} what one request holds and what its
 * answer tells each writer.
 */
public final class GroupCommit {

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
    private final ClaimWrites claims;
    private final CommitBatches batches;

    /** Which claims of a next fire go with the last ends of a fire, and what becomes of them. */
    public interface Ahead {

        /**
         * The claims to create with these ends, all of one fire, and how to treat the fire nodes; no claims for none.
         *
         * @param lastEnds the ends that are the last of their fire on this instance
         * @param ends every end written with them: their items are free once it is answered
         */
        Next claimsAfter(List<Claim> lastEnds, List<Claim> ends);

        /** @param assignmentVersion the version of the assignment node the claims were decided under, or -1 */
        record Next(List<Claim> claims, FireNodes fireNodes, int assignmentVersion) {

            public static final Next NONE = new Next(List.of(), FireNodes.AS_NEEDED, -1);
        }

        /**
         * What came of the claims {@link #claimsAfter} gave, once the request was answered or failed.
         *
         * @param claimed what came of them; null when the server did not answer (whether they were created is then
         *     unknown: any that were name this session, and its next fire or audit finds them)
         */
        void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed);
    }

    /**
     * One write to queue: a claim at the version it holds, and how it goes.
     *
     * @param lastOfFire whether it is the last end of its fire here: the claims of the next fire go with it
     * @param guard the version of the assignment a start was decided under, or {@code -1}: the write fails with
     *     {@link AssignmentGuard.Moved} once a newer one was written
     * @param sendNow whether it goes at once; otherwise it lingers for others to join it
     */
    public record Write(Claim claim, boolean lastOfFire, int guard, boolean sendNow) {

        /** A write sent at once: a retry, which must not start unless the claim is still ours. */
        public static Write now(Claim claim) {
            return new Write(claim, false, UNGUARDED, true);
        }

        /** The end of an item's run: unless it is the last end of its fire here, it lingers for more ends. */
        public static Write end(Claim ended, boolean lastOfItsFire) {
            return new Write(ended, lastOfItsFire, UNGUARDED, lastOfItsFire);
        }

        /**
         * The start of a run: the starts of the runs that leave their queue together go in one request, so unless it is
         * the last of them it lingers for the others as an end does.
         */
        public static Write start(Claim started, boolean lastOfTogether, int assignmentVersion) {
            return new Write(started, false, assignmentVersion, lastOfTogether);
        }
    }

    public GroupCommit(ClaimWrites claims, ScheduledExecutorService drainer, Ahead ahead) {
        this.claims = claims;
        this.drainer = drainer;
        this.batches = new CommitBatches(ahead);
    }

    /**
     * Completes with the claim as stored now, or empty when it is no longer this owner's (taken over, or retired);
     * exceptionally when ZooKeeper could not be reached: whether the write happened is then unknown.
     */
    public CompletableFuture<Optional<Claim>> queue(Write write) {
        Pending pending = new Pending(write, new CompletableFuture<>());
        queue.add(pending);
        if (write.sendNow()) {
            scheduleDrain();
        } else {
            long now = System.nanoTime();
            lastEndNanos = now;
            if (lingering.compareAndSet(false, true)) {
                lingerSinceNanos = now;
                lookAgainIn(LINGER_NANOS);
            }
        }
        return pending.result();
    }

    /** Sends what is queued now, without waiting for it to linger: starts written ahead of their runs. */
    public void flush() {
        scheduleDrain();
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

    /** Writes the claim at once and waits for the answer. */
    public Optional<Claim> write(Claim claim) throws Exception {
        try {
            return queue(Write.now(claim)).join();
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
     * Its answers are handed to the writers on the drainer, never on ZooKeeper's thread.
     */
    private void sendNext() {
        List<Pending> batch = new ArrayList<>();
        for (Pending next = queue.poll(); next != null; next = queue.poll()) {
            batch.add(next);
        }
        if (batch.isEmpty()) {
            draining.set(false);
            // A writer that queued after the last look, while this drain still counted as running, is sent now.
            if (!queue.isEmpty()) {
                scheduleDrain();
            }
            return;
        }
        CommitBatches.Request request = batches.request(batch);
        if (request == null) {
            onDrainer(this::sendNext);
            return;
        }
        claims.commitAsync(request.writes(), request.nextFire(), request.next(), request.fireNodes(), request.guard())
                .whenComplete((committed, failure) -> onDrainer(() -> {
                    try {
                        batches.answer(request, committed, failure);
                    } finally {
                        sendNext();
                    }
                }));
    }

    /** On the drainer; on the calling thread once it shuts down, rather than lose the writes. */
    private void onDrainer(Runnable task) {
        try {
            drainer.execute(task);
        } catch (RuntimeException rejected) {
            task.run();
        }
    }
}
