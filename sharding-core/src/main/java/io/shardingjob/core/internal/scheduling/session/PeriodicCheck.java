package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The job's periodic pass on its loop, every reconcile interval while it is started: a resume and a write owed from a
 * change (the schedule history's catch-up) that failed are retried, the leader reconciles and keeps the ledger, and the
 * ledger is audited. Every job of this instance passes at the same
 * instants ({@link ReconcilePhase}), so that their requests go together.
 */
public final class PeriodicCheck {

    private final ConnectionGuard connection;
    private final FollowUps followUps;
    private final SerialExecutor serial;
    private final ScheduledExecutorService scheduler;
    private final Duration interval;
    private final Runnable owedWrites;

    /**
     * Whether a periodic check waits on the job's loop: while ZooKeeper is slow to answer the one running, the timer
     * adds no more behind it.
     */
    private final AtomicBoolean queued = new AtomicBoolean();

    private volatile @Nullable ScheduledFuture<?> task;

    public PeriodicCheck(
            ConnectionGuard connection,
            FollowUps followUps,
            SerialExecutor serial,
            ScheduledExecutorService scheduler,
            Duration interval,
            Runnable owedWrites) {
        this.connection = connection;
        this.followUps = followUps;
        this.serial = serial;
        this.scheduler = scheduler;
        this.interval = interval;
        this.owedWrites = owedWrites;
    }

    /** Starts the passes, at the next instant of this instance's phase after {@code nowMillis}. */
    public void start(long nowMillis, String instanceId) {
        long every = interval.toMillis();
        long first = ReconcilePhase.delayToNext(nowMillis, every, instanceId);
        task = scheduler.scheduleAtFixedRate(this::queue, first, every, TimeUnit.MILLISECONDS);
    }

    /** Stops the passes; one under way ends on its own. */
    public void stop() {
        ScheduledFuture<?> started = task;
        if (started != null) {
            started.cancel(false);
        }
    }

    private void queue() {
        serial.submitOnce(queued, this::pass);
    }

    private CompletableFuture<Void> pass() {
        owedWrites.run();
        Reconciler reconciler = followUps.reconciler();
        return connection
                .retryResume()
                .thenCompose(resumed -> reconciler.reconcile())
                // On the leader the audit starts from the ledger as the keeper just left it: one read less per pass.
                .thenCompose(kept -> followUps
                        .audits()
                        .run(kept.orElse(null))
                        // A pass that kept the ledger (this instance leads) and left more fires than it takes: the
                        // next follows now, or the ledger of a job fired faster than that grows.
                        .thenApply(audited -> kept.isPresent() && reconciler.keeperIsBehind()))
                .thenAccept(behind -> {
                    if (behind) {
                        queue();
                    }
                });
    }
}
