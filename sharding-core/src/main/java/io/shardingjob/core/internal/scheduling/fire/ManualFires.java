package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.internal.ledger.AnnouncedFires;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.ManualFireRecords;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's manual fires on this instance: an operator's trigger, which records a fire with its job parameter in the
 * ledger and announces it ({@link ManualFireRecords}), and the announcements of every instance's triggers, heard through
 * the job's cache. Each fire is handed to the {@link ManualFireHandler} at most once here, so that every instance
 * starts its own items of it at once: the instance that asked at once after the write, the others when their cache
 * sees the announcement.
 *
 * <p>The announcement lists the fires announced last ({@link AnnouncedFires}): when the cache shows it once for several
 * writes (coalesced, or changed while it reconnected), every fire announced since the one seen last is handed on, not
 * only the newest.
 *
 * <p>This only makes the fire prompt; the ledger keeps the promise. A fire handed on twice would find its claims taken,
 * and a fire never handed on (announced before this instance started, or pushed out of the list while its cache was
 * away; a handler that failed) is made up by its items' owners' audits from the fire's record, as a manual fire with
 * its parameter.
 */
public final class ManualFires {

    private static final Logger log = LoggerFactory.getLogger(ManualFires.class);

    /** Fires remembered as handed on: far more than operators trigger within a cache's delay. */
    private static final int REMEMBERED = 256;

    private final ManualFireRecords records;
    private final ManualFireHandler handler;
    private final Supplier<Instant> clock;
    private final String jobName;

    /** The fires handed on here (or announced before the cache's first load), oldest first; guarded by this. */
    private final Set<Instant> known = new LinkedHashSet<>();

    /** Whether the cache's first load is done: what it finds was announced before this instance started. */
    private boolean loaded;

    /** The newest fire the announcement named when this instance last read it; guarded by this. */
    private @Nullable Instant seen;

    public ManualFires(ManualFireRecords records, ManualFireHandler handler, Supplier<Instant> clock, String jobName) {
        this.records = records;
        this.handler = handler;
        this.clock = clock;
        this.jobName = jobName;
    }

    /**
     * Records a manual fire now, announces it to every instance, and hands it on here, on the calling thread (an
     * operator's): it waits for ZooKeeper.
     *
     * @param jobParameter the parameter every item of the fire runs with; null for the job's configured one
     * @throws RegistryUnavailableException when ZooKeeper did not record it
     */
    public Instant trigger(@Nullable String jobParameter) {
        Instant fireTime;
        try {
            fireTime = records.record(clock.get(), FireOrigin.manual(jobParameter));
        } catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new RegistryUnavailableException("Job '" + jobName + "': could not record the manual fire", ex);
        }
        log.info(
                "Job {}: manual fire {} recorded{}",
                jobName,
                fireTime,
                jobParameter == null ? "" : " with job parameter '" + logged(jobParameter) + "'");
        if (remember(fireTime)) {
            handOn(fireTime);
        }
        return fireTime;
    }

    /** A job parameter as the log shows it: up to 16 KiB is allowed, a log line keeps its start. */
    private static String logged(String jobParameter) {
        return jobParameter.length() <= 120
                ? jobParameter
                : jobParameter.substring(0, 100) + "... (" + jobParameter.length() + " characters)";
    }

    /**
     * The announcement node's data as the cache has it now: each fire announced since the last read that is not handed
     * on here yet is, once loaded.
     */
    public void announced(byte @Nullable [] data) {
        AnnouncedFires announced = AnnouncedFires.decode(data);
        List<Instant> fresh = new ArrayList<>();
        synchronized (this) {
            for (Instant fireTime : announced.after(seen)) {
                if (remember(fireTime) && loaded) {
                    fresh.add(fireTime);
                }
            }
            seen = announced.newest();
        }
        fresh.forEach(this::handOn);
    }

    /** The cache's first load is done: later announcements are of fires made since. */
    public synchronized void loaded() {
        loaded = true;
    }

    /** Whether the fire is new here; it is known from now on. */
    private synchronized boolean remember(Instant fireTime) {
        if (!known.add(fireTime)) {
            return false;
        }
        if (known.size() > REMEMBERED) {
            Iterator<Instant> oldest = known.iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }

    private void handOn(Instant fireTime) {
        try {
            handler.fire(fireTime);
        } catch (RuntimeException ex) {
            log.warn(
                    "Job {}: the manual fire {} could not be started here; the audit makes it up",
                    jobName,
                    fireTime,
                    ex);
        }
    }

    /**
     * The handler of a coordinator given none: starts the fire with the job and executor given to its builder, the
     * planning on {@code executor}, the job's hand-off thread (it waits for ZooKeeper, which the coordination thread
     * must not, and hands the runs to the item executor, which the coordination thread must not either: see {@link
     * ItemHandOff}).
     */
    public static ManualFireHandler firingOn(
            Executor executor, Function<Instant, CompletableFuture<FireReport>> fire, String jobName) {
        return fireTime -> {
            try {
                executor.execute(() -> {
                    try {
                        fire.apply(fireTime).whenComplete((report, failure) -> {
                            if (failure != null) {
                                log.warn("Job {}: the manual fire {} failed", jobName, fireTime, failure);
                            }
                        });
                    } catch (RuntimeException ex) {
                        // No job given to the builder: the program fires with a job of its own, and should say how.
                        log.warn(
                                "Job {}: manual fire {} not started here ({}); give the builder a job or a manual"
                                        + " fire handler",
                                jobName,
                                fireTime,
                                ex.getMessage());
                    }
                });
            } catch (RejectedExecutionException stopping) {
                log.debug("Job {}: manual fire {} not started, the executor is stopping", jobName, fireTime);
            }
        };
    }
}
