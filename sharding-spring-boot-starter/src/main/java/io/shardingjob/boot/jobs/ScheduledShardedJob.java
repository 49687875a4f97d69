package io.shardingjob.boot.jobs;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.JobCoordinatorBuilder;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.scheduling.config.TriggerTask;

/**
 * One started job on this instance: its coordinator and its schedule. Each trigger (the cron's, and an operator's
 * manual fire announced by the coordinator) hands a fire to the fire pool and returns at once, so the instance's one
 * {@link FireTimer} never waits for a job (the fires it starts at one instant go to the pool together); the fire pool
 * only claims and hands the items
 * to the item pool, so it never waits for them either. A fire that arrives while items of the previous
 * one still run is handed to the core as well: it skips those items and, when the job's {@code misfire} is on, runs
 * them once more as soon as they finish.
 *
 * <p>The schedule is a Spring {@link ScheduledTask} (scheduled on the {@link FireTimer}), so that what lists an application's scheduled tasks (Boot's
 * {@code scheduledtasks} endpoint, through {@link RunningJobs}) lists the job as a cron task: its cron, the job's method
 * as target (named as Spring names a {@code @Scheduled} method) and its next fire.
 */
public final class ScheduledShardedJob {

    private static final Logger log = LoggerFactory.getLogger(ScheduledShardedJob.class);

    private final @Nullable ShardedJobMethod method;

    private final String describedAs;

    private final JobCoordinator coordinator;

    private final ShardedJobExecutors executors;

    private final JobTrigger trigger;

    /** Spring's public way to a {@link ScheduledTask}: it schedules on the instance's timer and keeps nothing itself. */
    private final ScheduledTaskRegistrar registrar = new ScheduledTaskRegistrar();

    private volatile @Nullable ScheduledTask schedule;

    /** Whether the job is to be scheduled: from {@link #schedule()} to {@link #cancel()}, on demand or not. */
    private boolean scheduling;

    /**
     * Builds the job's coordinator so that the manual fires it hears of, asked for on any instance, come back to this
     * job's one fire path ({@link #fire}): the same pools, fire listeners, observations and metrics as a scheduled fire.
     *
     * @param method the {@code @ShardedJob} method that declares the job; null for a job defined at run time
     * @param describedAs where the job comes from, for messages
     * @param builder the job's coordinator, with everything set but its manual fire handler
     */
    ScheduledShardedJob(
            @Nullable ShardedJobMethod method,
            String describedAs,
            JobCoordinatorBuilder builder,
            ShardedJobExecutors executors,
            JobCrons crons) {
        this.method = method;
        this.describedAs = describedAs;
        // Called once the coordinator started, never while this is being built.
        this.coordinator = builder.manualFireHandler(fireTime -> fire(fireTime, ExecutionSource.MANUAL))
                .build();
        this.executors = executors;
        this.trigger = new JobTrigger(coordinator, crons);
        // The instance's one timer: the registrar's task is an entry of its timetable, not a future of its own.
        this.registrar.setTaskScheduler(executors.timer());
    }

    /** The method that declares the job; null for a job defined at run time. */
    @Nullable
    ShardedJobMethod method() {
        return method;
    }

    /** Whether the job is this method's. */
    boolean declaredBy(ShardedJobMethod candidate) {
        return method != null && method.beanName().equals(candidate.beanName());
    }

    /** Where the job comes from, for messages. */
    public String describe() {
        return describedAs;
    }

    public JobCoordinator coordinator() {
        return coordinator;
    }

    /**
     * Schedules the job's fires; a job on demand gets no task, as Spring schedules none for {@code @Scheduled(cron =
     * "-")}, until an operator gives it a cron ({@link #followScheduleChange()}).
     */
    synchronized void schedule() {
        scheduling = true;
        arm();
    }

    private void arm() {
        schedule = coordinator.configuration().isOnDemand()
                ? null
                : registrar.scheduleTriggerTask(new TriggerTask(new Fire(), trigger));
    }

    private void disarm() {
        ScheduledTask scheduled = schedule;
        schedule = null;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }

    /** The schedule in force, {@code null} once cancelled and while the job is on demand. */
    @Nullable
    ScheduledTask scheduledTask() {
        return schedule;
    }

    /**
     * When the schedule fires next, {@code null} once cancelled and while the job is on demand. The timer asks the trigger for the next time right after
     * handing a fire off, so this is the pending time except during that hand-off, when it is the fire's own.
     */
    @Nullable
    Instant nextFireTime() {
        return schedule == null ? null : trigger.next();
    }

    /**
     * Re-schedules when the stored cron or time zone changed, so that the change applies before the old next fire;
     * schedules a job on demand that was given a cron, and cancels the task of a job that became on demand (whose
     * trigger the timer stopped asking once it answered no next time).
     */
    synchronized void followScheduleChange() {
        if (!scheduling) {
            return;
        }
        boolean onDemand = coordinator.configuration().isOnDemand();
        if (schedule == null ? !onDemand : onDemand || trigger.isStale()) {
            disarm();
            arm();
        }
    }

    /** Stops scheduling; a fire in progress goes on. */
    synchronized void cancel() {
        scheduling = false;
        disarm();
    }

    /**
     * Starts a fire in the background.
     *
     * @return {@code false} when the job no longer runs here, so none was started
     */
    boolean fire(Instant fireTime, ExecutionSource source) {
        if (!coordinator.isStarted()) {
            return false;
        }
        try {
            executors.timer().handOff(() -> run(fireTime, source));
            return true;
        } catch (RejectedExecutionException ex) {
            log.warn("Job {}: fire of {} rejected, the executors are shutting down", coordinator.jobName(), fireTime);
            return false;
        }
    }

    /**
     * Claims and hands the fire's items on; the fire thread is free again at once, not when the items end, so that a
     * few fire threads start the fires of many jobs due at the same instant.
     */
    private void run(Instant fireTime, ExecutionSource source) {
        try {
            coordinator.fireAsync(source, fireTime).whenComplete((report, failure) -> {
                if (failure != null) {
                    log.error("Job {}: the fire of {} failed", coordinator.jobName(), fireTime, failure);
                } else {
                    logSkips(fireTime, report);
                }
            });
        } catch (RuntimeException ex) {
            log.error("Job {}: the fire of {} failed before running any item", coordinator.jobName(), fireTime, ex);
        }
    }

    private void logSkips(Instant fireTime, FireReport report) {
        if (report.skipReason() != null) {
            log.debug("Job {}: fire of {} ran nothing: {}", coordinator.jobName(), fireTime, report.skipReason());
        } else if (report.skipped().values().stream().anyMatch(reason -> !reason.equals("disabled"))) {
            // Disabled items are skipped on purpose, every fire: only the other reasons are news.
            log.info("Job {}: fire of {} skipped items {}", coordinator.jobName(), fireTime, report.skipped());
        }
    }

    /** What the scheduler runs: the hand-off of a fire at the time the trigger scheduled. */
    private final class Fire implements Runnable {

        @Override
        public void run() {
            fire(trigger.scheduled(), ExecutionSource.NORMAL);
        }

        /**
         * As Spring's {@code ScheduledMethodRunnable} names a {@code @Scheduled} method: {@code com.example.Jobs.sync};
         * a job defined at run time by its handler.
         */
        @Override
        public String toString() {
            if (method == null) {
                return describedAs;
            }
            Method target = method.method();
            return target.getDeclaringClass().getName() + "." + target.getName();
        }
    }
}
