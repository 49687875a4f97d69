package io.shardingjob.core.internal.scheduling;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ManualFireHandler;
import io.shardingjob.core.internal.scheduling.fire.CallingThread;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ManualFires;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Where the program's fires of one job enter the core: scheduled ones, ones run at once, and this instance's items of a
 * manual fire. Each fire's time is made here, once: {@link FireSchedule#fireTimeOf} keeps it to the millisecond, the
 * ledger's key for it.
 */
public final class JobFires {

    private final JobState state;
    private final JobSettings.JobCode code;
    private final FireRunner fireRunner;

    JobFires(JobState state, JobSettings.JobCode code, FireRunner fireRunner) {
        this.state = state;
        this.code = code;
        this.fireRunner = fireRunner;
    }

    public FireReport fire(ItemExecutor job, Executor itemExecutor) {
        return fire(job, itemExecutor, ExecutionSource.NORMAL, state.now());
    }

    public FireReport fire(ExecutionSource source, Instant fireTime) {
        return fire(builtJob(), code.itemExecutor(), source, fireTime);
    }

    public CompletableFuture<FireReport> fireAsync(ExecutionSource source, Instant fireTime) {
        return fireRunner.fireAsync(builtJob(), code.itemExecutor(), source, FireSchedule.fireTimeOf(fireTime));
    }

    /**
     * Runs one fire: claims this instance's items of it in the ledger, runs those it won and waits for them. Given an
     * executor that runs tasks on the calling thread ({@code Runnable::run}), the items run on the calling thread, one
     * after another, while it waits: never on the thread that happened to complete the fire's claims (see {@link
     * CallingThread}).
     */
    public FireReport fire(ItemExecutor job, Executor itemExecutor, ExecutionSource source, Instant scheduled) {
        Instant fireTime = FireSchedule.fireTimeOf(scheduled);
        if (CallingThread.runsTasksOnTheCallingThread(itemExecutor)) {
            CallingThread caller = new CallingThread();
            return caller.runUntil(fireRunner.fireAsync(job, caller, source, fireTime));
        }
        return fireRunner.fire(job, itemExecutor, source, fireTime);
    }

    /** The program's handler of manual fires, or by default a fire of the job given to the builder. */
    ManualFireHandler manualFireHandler(Executor handOffThread) {
        ManualFireHandler given = code.manualFireHandler();
        if (given != null) {
            return given;
        }
        return ManualFires.firingOn(
                handOffThread, fireTime -> fireAsync(ExecutionSource.MANUAL, fireTime), state.jobName());
    }

    private ItemExecutor builtJob() {
        ItemExecutor job = code.job();
        if (job == null) {
            throw new IllegalStateException("Job '" + state.jobName() + "': no job was given to the builder");
        }
        return job;
    }
}
