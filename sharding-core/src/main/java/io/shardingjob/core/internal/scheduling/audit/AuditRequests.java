package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.LedgerOverview;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.Owed;
import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When one job's {@link LedgerAudit} runs. Registry events, fires, failed claim writes and the audit itself ask for
 * audits, often many at once, and each audit reads the ledger: a burst of requests costs one audit on the serial
 * executor, and a delayed request is scheduled once however often it is repeated meanwhile. It also remembers which
 * assignment the last audit saw, since a new one may give this instance items whose earlier fires were left undone.
 */
public final class AuditRequests implements AuditDemand {

    private static final Logger log = LoggerFactory.getLogger(AuditRequests.class);

    /** Set once while the job's parts are wired, before anything asks for an audit. */
    private @Nullable LedgerAudit audit;

    private final ScheduledExecutorService scheduler;
    private final SerialExecutor serial;

    /** A job not started yet, or stopping, asks for nothing. */
    private final BooleanSupplier started;

    private final Supplier<Assignment> assignment;
    private final String jobName;

    private final AtomicBoolean laterScheduled = new AtomicBoolean();
    private final AtomicBoolean queued = new AtomicBoolean();

    /** The epoch of the assignment the last audit saw: a new one may have given this instance items to look after. */
    private volatile long auditedEpoch = -1;

    public AuditRequests(
            ScheduledExecutorService scheduler,
            SerialExecutor serial,
            BooleanSupplier started,
            Supplier<Assignment> assignment,
            String jobName) {
        this.scheduler = scheduler;
        this.serial = serial;
        this.started = started;
        this.assignment = assignment;
        this.jobName = jobName;
    }

    public void auditWith(LedgerAudit audit) {
        this.audit = audit;
    }

    @Override
    public void later(Duration delay) {
        if (started.getAsBoolean() && laterScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(
                        () -> {
                            laterScheduled.set(false);
                            soon();
                        },
                        Math.max(1, delay.toMillis() + 50),
                        TimeUnit.MILLISECONDS);
            } catch (RuntimeException closing) {
                laterScheduled.set(false);
            }
        }
    }

    /**
     * Makes the item's missed fires up at once, on the coordination pool but not in turn with the audits: nothing is read,
     * and the item's reservation, held for this, keeps any audit from running it meanwhile. Else an audit soon.
     */
    @Override
    public void owed(Owed owed, Instant ranFor) {
        if (!started.getAsBoolean()) {
            return;
        }
        try {
            serial.pool().execute(() -> {
                boolean madeUp = false;
                try {
                    madeUp = Objects.requireNonNull(audit, "audit").makeUp(owed, ranFor);
                } catch (RuntimeException ex) {
                    log.warn("Job {}: could not make item {} up at once; the audit will: {}", jobName, owed.item(), ex);
                } finally {
                    // The audit frees the item held for this if it finds nothing to do.
                    if (!madeUp) {
                        soon();
                    }
                }
            });
        } catch (RuntimeException closing) {
            // The job closed with its pool: nothing more to make up here.
        }
    }

    @Override
    public void soon() {
        if (started.getAsBoolean()) {
            serial.submitOnce(queued, () -> run(null));
        }
    }

    /**
     * Audits now, on the coordination loop; a failure is logged, and the next request or periodic check retries.
     *
     * @param read the ledger as read a moment ago on this loop, or null to read it
     * @return done when the audit is, never failed
     */
    public CompletableFuture<Void> run(@Nullable LedgerOverview read) {
        auditedEpoch = assignment.get().epoch();
        CompletableFuture<Void> audited;
        try {
            audited = Objects.requireNonNull(audit, "audit").run(read);
        } catch (RuntimeException ex) {
            audited = CompletableFuture.failedFuture(ex);
        }
        return audited.exceptionally(failure -> {
            log.warn(
                    "Job {}: audit failed, will retry: {}",
                    jobName,
                    Answers.cause(failure).toString());
            return null;
        });
    }

    public boolean hasAudited(long epoch) {
        return auditedEpoch == epoch;
    }
}
