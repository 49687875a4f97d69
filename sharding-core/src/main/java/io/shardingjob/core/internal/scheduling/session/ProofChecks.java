package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.requests.SessionProof;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * While items of the job run here, keeps the session proven through the ensemble's leader (a {@code sync}, shared by
 * every job of the client) once the last proof is a ninth of a session timeout old, and interrupts the runs in the
 * job's code once it is a third old: at the last proof plus a third of the session timeout, whenever the next proof was
 * asked. The leader may expire a session one timeout after the request that last proved it was sent, so the runs stop
 * well before another instance can take them over. A follower cut off from its leader goes on answering this client's
 * pings, so Curator never reports SUSPENDED: only what the leader answers proves the session.
 *
 * <p>Only runs in the job's code are held to the deadline ({@link RunMemory#anyInJob}): a run still on its way to
 * its code (queued, or waiting for its start's answer, which is itself a proof) checks the proof's age right before its
 * code ({@link RunStart#proven}), so an instance idle for a while, whose proof is old, does not interrupt the runs of
 * its next fire. Every run in the job's code entered on a proof no older than a third, so once the last proof is older,
 * each of them is past its deadline.
 *
 * <p>Race window: a pause of the whole process (a long GC) stops these checks too; a run that entered its code before
 * the pause runs on after it until the next check, at most a check period, while the session may have expired. Its
 * claim's fencing token lets a store refuse its writes.
 */
final class ProofChecks {

    enum Step {
        /** The last proof is younger than a ninth of the session timeout: nothing. */
        NONE,
        /** Ask the leader for a proof: the last one gets old. */
        ASK,
        /** Ask for a proof, and interrupt the runs in the job's code: their proof is past its deadline. */
        INTERRUPT
    }

    private final RunMemory memory;
    private final SessionProof proof;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier sessionTimeoutMillis;
    private final BooleanSupplier suspended;
    private final Consumer<String> interrupt;
    private volatile @Nullable ScheduledFuture<?> next;
    private volatile boolean closed;

    /** Whether the runs here were interrupted because nothing proved the session, since it was last proven. */
    private volatile boolean interruptedUnproven;

    /**
     * @param suspended whether the connection is suspended: its own interrupt comes then
     * @param interrupt interrupts the running items, saying why
     */
    ProofChecks(
            RunMemory memory,
            SessionProof proof,
            ScheduledExecutorService scheduler,
            LongSupplier sessionTimeoutMillis,
            BooleanSupplier suspended,
            Consumer<String> interrupt) {
        this.memory = memory;
        this.proof = proof;
        this.scheduler = scheduler;
        this.sessionTimeoutMillis = sessionTimeoutMillis;
        this.suspended = suspended;
        this.interrupt = interrupt;
    }

    /**
     * What a check does, when the last proof was sent {@code sinceProven} ago (null: none proved this session yet).
     * Runs are held to the last proof plus a third of the session timeout: when the next proof was asked for does not
     * move that deadline, since the leader counts the session's life from the last request it answered.
     */
    static Step step(@Nullable Duration sinceProven, boolean runsInJob, Duration sessionTimeout) {
        if (RunStart.fresh(sinceProven, sessionTimeout)) {
            return Step.NONE;
        }
        return runsInJob && !RunStart.proven(sinceProven, sessionTimeout) ? Step.INTERRUPT : Step.ASK;
    }

    /**
     * How long until the next check: an eighteenth of the session timeout, or just past the proof's deadline when that
     * comes sooner, so that runs stop at the deadline itself rather than up to a period later.
     */
    static Duration untilNextCheck(@Nullable Duration sinceProven, Duration sessionTimeout) {
        Duration period = max(Duration.ofMillis(10), sessionTimeout.dividedBy(18));
        if (!RunStart.proven(sinceProven, sessionTimeout)) {
            return period;
        }
        Duration pastDeadline = sessionTimeout.dividedBy(3).minus(sinceProven).plusMillis(1);
        return pastDeadline.compareTo(period) < 0 ? pastDeadline : period;
    }

    void start() {
        scheduleNext(untilNextCheck(null, Duration.ofMillis(sessionTimeoutMillis.getAsLong())));
    }

    void close() {
        closed = true;
        ScheduledFuture<?> scheduled = next;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    private void check() {
        if (closed) {
            return;
        }
        Duration timeout = Duration.ofMillis(sessionTimeoutMillis.getAsLong());
        Duration since = proof.since();
        try {
            // An idle instance has nothing to stop, and its next run begins with no write only on a fresh proof
            // (RunStart.fresh), otherwise its start is a write; SUSPENDED has its own interrupt.
            if (!memory.isIdle() && !suspended.getAsBoolean()) {
                act(step(since, memory.anyInJob(), timeout), since);
            }
        } finally {
            scheduleNext(untilNextCheck(since, timeout));
        }
    }

    private void act(Step step, @Nullable Duration since) {
        if (step == Step.NONE) {
            interruptedUnproven = false;
            return;
        }
        proof.proveAsync().exceptionally(failure -> null);
        if (step == Step.ASK) {
            interruptedUnproven = false;
        } else if (!interruptedUnproven) {
            interruptedUnproven = true;
            interrupt.accept((since == null
                            ? "nothing proved the session through the ensemble's leader"
                            : "the ensemble's leader has not answered for " + since.toMillis() + " ms")
                    + ", a third of the session timeout: the session may expire without this instance noticing");
        }
    }

    private void scheduleNext(Duration delay) {
        if (closed) {
            return;
        }
        try {
            next = scheduler.schedule(this::check, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // The coordinator is closing: nothing runs any more.
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
