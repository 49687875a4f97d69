package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.internal.scheduling.job.SerialExecutor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;

/**
 * The threads one job coordinates on: registry reactions, audits, reconciles, claim writes and item time-outs run on
 * the scheduler, and the job's own coordination tasks one at a time on it through the serial executor.
 *
 * @param owned whether the scheduler is the job's own thread, shut down on close, rather than a shared pool
 */
record CoordinationThreads(ScheduledExecutorService scheduler, boolean owned, SerialExecutor serial) {

    static CoordinationThreads of(@Nullable ScheduledExecutorService shared, String jobName) {
        ScheduledExecutorService scheduler = shared != null
                ? shared
                : Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "sharding-" + jobName);
                    thread.setDaemon(true);
                    return thread;
                });
        return new CoordinationThreads(scheduler, shared == null, new SerialExecutor(scheduler));
    }

    /** Stops the job's own thread; a shared pool goes on serving the other jobs. */
    void shutdown() {
        if (owned) {
            scheduler.shutdownNow();
        }
    }
}
