package io.shardingjob.boot.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * One trigger task of the {@link FireTimer}: its place in the {@link TimerAlarm}, and, as the future Spring keeps in
 * its {@code ScheduledTask}, how long until its next run. Like a repeating task of Spring's, it is done only once
 * cancelled or once its trigger has no next time.
 *
 * <p>The timer's pass runs it and only then, once the pass handed its batch on, asks it to schedule its next time, from
 * the time it was scheduled for and the time the run completed (see {@link FireTimer} for why {@link JobTrigger} needs
 * that order). A run that throws is logged and the task goes on, as Spring does for repeating tasks; a trigger that
 * throws ends the task.
 */
final class TriggerTask implements ScheduledFuture<Object> {

    // The timer's category, which operators' logging levels name: a task is the timer's, split out to read.
    private static final Logger log = LoggerFactory.getLogger(FireTimer.class);

    private final Runnable task;

    private final Trigger trigger;

    private final TimerAlarm alarm;

    private final Clock clock;

    private final SimpleTriggerContext context;

    /** Completes when the trigger has no next time; cancelled with the task. */
    private final CompletableFuture<Object> finished = new CompletableFuture<>();

    private volatile @Nullable Instant next;

    TriggerTask(Runnable task, Trigger trigger, TimerAlarm alarm, Clock clock) {
        this.task = task;
        this.trigger = trigger;
        this.alarm = alarm;
        this.clock = clock;
        this.context = new SimpleTriggerContext(clock);
    }

    /** Runs the task scheduled for {@code scheduled}; the pass asks the trigger for the next time after. */
    void run(Instant scheduled) {
        Instant actual = clock.instant();
        try {
            task.run();
        } catch (RuntimeException ex) {
            log.error("Scheduled task {} failed", task, ex);
        }
        context.update(scheduled, actual, clock.instant());
    }

    /** Asks the trigger for the next time and puts the task there, unless it was cancelled meanwhile. */
    void scheduleNext() {
        if (finished.isDone()) {
            return;
        }
        Instant time;
        try {
            time = trigger.nextExecution(context);
        } catch (RuntimeException ex) {
            log.error("Scheduled task {} stops: its trigger failed", task, ex);
            finished.completeExceptionally(ex);
            return;
        }
        if (time == null) {
            next = null;
            finished.complete(null);
            return;
        }
        synchronized (alarm) {
            // Checked under the lock cancel holds: a task cancelled since the check above is not put back.
            if (!finished.isDone() && alarm.put(this, time)) {
                next = time;
            }
        }
    }

    @Override
    public long getDelay(TimeUnit unit) {
        Instant at = next;
        return at == null ? 0 : unit.convert(Duration.between(clock.instant(), at));
    }

    @Override
    public int compareTo(Delayed other) {
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    /** Takes the task out of the timetable; a run in progress goes on, and no other follows it. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        synchronized (alarm) {
            boolean cancelled = finished.cancel(false);
            alarm.remove(this);
            return cancelled;
        }
    }

    @Override
    public boolean isCancelled() {
        return finished.isCancelled();
    }

    @Override
    public boolean isDone() {
        return finished.isDone();
    }

    @Override
    public Object get() throws InterruptedException, ExecutionException {
        return finished.get();
    }

    @Override
    public Object get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        return finished.get(timeout, unit);
    }
}
