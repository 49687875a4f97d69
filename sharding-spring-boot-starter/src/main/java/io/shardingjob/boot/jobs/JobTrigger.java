package io.shardingjob.boot.jobs;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.CronTrigger;

/**
 * A cron trigger that reads the job's cron and time zone from the configuration in force (the one stored in ZooKeeper)
 * every time, so that an operator's change reaches every instance without a restart (see {@link #isStale()}), and that
 * remembers the time it scheduled, so that a fire knows its scheduled time. The instance's {@link FireTimer}, as Spring's
 * own rescheduling task, computes the next time only after the previous run returned, so the remembered time is always
 * that of the run in progress.
 *
 * <p>It is a {@link CronTrigger} only so that what describes Spring's cron tasks describes the job too: Boot's
 * {@code scheduledtasks} endpoint lists a task whose trigger is a {@code CronTrigger} as a cron task with
 * {@link #getExpression()}, which here is the cron the pending next time was computed from. Nothing else of
 * {@code CronTrigger} is used: the times come from the cron of the configuration in force, placed on the time line by
 * {@link ZonedCron} (the daylight-saving rule), and two jobs with the same
 * cron are two triggers.
 *
 * <p>A job on demand (cron {@code -}) has no next time: asked while the job is on demand, the trigger answers
 * {@code null}, and the timer stops asking. {@link ScheduledShardedJob} schedules no task for such a job and follows a
 * change to a cron (or back) by scheduling (or cancelling) the task again: see {@link #isStale()}.
 */
public final class JobTrigger extends CronTrigger {

    private static final Logger log = LoggerFactory.getLogger(JobTrigger.class);

    private final JobCoordinator coordinator;

    private @Nullable ZonedCron cron;

    private @Nullable String cronText;

    private @Nullable ZoneId zone;

    private volatile Instant scheduled = Instant.now();

    private volatile @Nullable Instant next;

    private final JobCrons crons;

    /** What {@link #getExpression()} says: the cron the pending next time was computed from, or {@code -}. */
    private String expression;

    JobTrigger(JobCoordinator coordinator, JobCrons crons) {
        this(coordinator, coordinator.configuration(), crons);
    }

    private JobTrigger(JobCoordinator coordinator, JobConfiguration initial, JobCrons crons) {
        // CronTrigger needs a cron it can read: a job on demand gives it one it never uses (see getExpression).
        super(initial.isOnDemand() ? "0 0 0 1 1 *" : initial.cron(), initial.timeZone());
        this.coordinator = coordinator;
        this.crons = crons;
        this.expression = initial.cron();
    }

    @Override
    public synchronized @Nullable Instant nextExecution(TriggerContext context) {
        JobConfiguration configuration = coordinator.configuration();
        if (configuration.isOnDemand()) {
            onDemand(configuration);
            next = null;
            return null;
        }
        ZonedCron current = current(configuration);
        Instant computed = current.nextAfter(lastFireDone(context));
        next = computed;
        if (computed != null) {
            scheduled = computed;
        }
        return computed;
    }

    /**
     * The time from which the next fire is looked for, as Spring's {@code CronTrigger} takes it: when the last run
     * completed (fires its run outlasted are not made up here), but never before the time that run was scheduled for,
     * so that a run that started early does not fire twice; the clock's time before the first run.
     */
    private static Instant lastFireDone(TriggerContext context) {
        Instant completed = context.lastCompletion();
        if (completed == null) {
            return context.getClock().instant();
        }
        Instant scheduled = context.lastScheduledExecution();
        return scheduled != null && completed.isBefore(scheduled) ? scheduled : completed;
    }

    /**
     * Whether the configuration in force has another cron or time zone than the one this trigger last read. The timer
     * asks a trigger for the next time only after a run, so a job that fires rarely must be re-scheduled for a change to
     * apply before its old next time.
     */
    synchronized boolean isStale() {
        JobConfiguration configuration = coordinator.configuration();
        return cronText != null
                && !(Objects.equals(cronText, configuration.cron()) && Objects.equals(zone, configuration.timeZone()));
    }

    /** The time the run in progress was scheduled for. */
    Instant scheduled() {
        return scheduled;
    }

    /**
     * The time last computed for the next fire: the pending one, or during a fire's hand-off that fire's; {@code null}
     * before the first computation and when the cron never fires again.
     */
    @Nullable
    Instant next() {
        return next;
    }

    /**
     * The cron the pending next time was computed from (an invalid one stored in ZooKeeper is never it), or {@code -}
     * when the job was on demand; before the first time, the configured one.
     */
    @Override
    public synchronized String getExpression() {
        return expression;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    @Override
    public String toString() {
        return getExpression();
    }

    /** Remembers that the job is on demand, saying so once when it was not. */
    private void onDemand(JobConfiguration configuration) {
        if (cronText != null && !configuration.cron().equals(cronText)) {
            log.info("Job {}: schedule changed to on demand: it fires only when triggered", configuration.name());
        }
        cronText = configuration.cron();
        zone = configuration.timeZone();
        expression = configuration.cron();
    }

    private ZonedCron current(JobConfiguration configuration) {
        if (cron != null
                && Objects.equals(cronText, configuration.cron())
                && Objects.equals(zone, configuration.timeZone())) {
            return cron;
        }
        JobCrons.InForce inForce = crons.inForce(configuration.name(), configuration.cron(), configuration.timeZone());
        if (inForce.problem() != null) {
            log.error(
                    "Job {}: ignoring the invalid cron '{}' stored in ZooKeeper, keeping '{}': {}",
                    configuration.name(),
                    configuration.cron(),
                    inForce.trigger().expression(),
                    inForce.problem());
        } else if (cronText != null) {
            log.info(
                    "Job {}: schedule changed to '{}' in {}",
                    configuration.name(),
                    configuration.cron(),
                    configuration.timeZone());
        }
        cron = inForce.trigger();
        expression = cron.expression();
        // Remember what was seen, valid or not, so that an invalid value is reported once.
        cronText = configuration.cron();
        zone = configuration.timeZone();
        return cron;
    }
}
