package io.shardingjob.boot.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;

/**
 * One timer for every job of an instance: it keeps each trigger task's next time in one {@link Timetable} and has one
 * task of its own on the real scheduler, armed for the earliest of them ({@link TimerAlarm}). When it wakes, every task
 * due by then runs, in one pass on the timer's thread, rather than each on its own wake-up of the scheduler: 5,000 jobs
 * are 5,000 entries of a sorted map, not 5,000 scheduled futures.
 *
 * <p>A task run by the timer is a fire's hand-off ({@code ScheduledShardedJob.Fire}): what it gives to
 * {@link #handOff(Runnable)} during the pass is held and, once every due task ran, handed to the fire pool as a batch:
 * as many drains of one shared queue as the pool has threads (or fires, if fewer), so that each fire thread that wakes
 * takes fires until none is left, and none waits for a wake-up of its own ({@link FireBatch}).
 *
 * <p>It is a {@link TaskScheduler} so that Spring's {@code ScheduledTaskRegistrar.scheduleTriggerTask} gives each job a
 * {@code ScheduledTask} whose {@code nextExecution()} is the job's entry here ({@link TriggerTask#getDelay}): Boot's
 * {@code scheduledtasks} endpoint lists the jobs as before. Only trigger tasks are the timer's; one-shot and periodic
 * tasks go to the real scheduler unchanged.
 *
 * <p>As Spring's own rescheduling task does, an entry asks its trigger for the next time only once its run returned
 * (and the pass handed its batch on), from the time it was scheduled for and the time the run completed:
 * {@link JobTrigger} relies on it to know the time of the fire in progress. A run that throws is logged and the task
 * goes on, as Spring does for repeating tasks.
 */
public final class FireTimer implements TaskScheduler, AutoCloseable {

    private final TaskScheduler scheduler;

    private final Clock clock;

    private final TimerAlarm alarm;

    private final FireBatch batch;

    /** One pass over the due tasks at a time: a wake-up armed during a pass waits for it. */
    private final Object pass = new Object();

    /**
     * @param scheduler what runs the tasks that are not trigger tasks
     * @param wakeUps the executor of the timer's own task: the scheduler's, whose thread then passes over the due tasks
     * @param fires the fire pool, which the fires handed off during a pass go to
     * @param fireParallelism how many fires the pool runs at once: how many drains a batch gets at most
     * @param clock what the trigger times are compared with
     */
    FireTimer(
            TaskScheduler scheduler,
            ScheduledExecutorService wakeUps,
            Executor fires,
            int fireParallelism,
            Clock clock) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.alarm = new TimerAlarm(wakeUps, clock, this::dispatchDue);
        this.batch = new FireBatch(fires, fireParallelism);
    }

    @Override
    public Clock getClock() {
        return clock;
    }

    /** Adds a task that runs at the trigger's times, from the trigger's first time from now. */
    @Override
    public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        TriggerTask entry = new TriggerTask(task, trigger, alarm, clock);
        entry.scheduleNext();
        return entry;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        return scheduler.schedule(task, startTime);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        return scheduler.scheduleAtFixedRate(task, startTime, period);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        return scheduler.scheduleAtFixedRate(task, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        return scheduler.scheduleWithFixedDelay(task, startTime, delay);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        return scheduler.scheduleWithFixedDelay(task, delay);
    }

    /**
     * Gives a fire to the fire pool: held for the batch when a task of this timer's pass hands it off, at once
     * otherwise (a manual fire).
     *
     * @throws RejectedExecutionException when the fire pool no longer takes fires
     */
    public void handOff(Runnable fire) {
        batch.handOff(fire);
    }

    /** Runs every task due by now, hands their fires on together, and arms the timer for the next time. */
    void dispatchDue() {
        synchronized (pass) {
            // None once closed: the pass then hands on nothing and arms nothing.
            List<Timetable.Due<TriggerTask>> due = alarm.takeDue();
            batch.collect();
            try {
                for (Timetable.Due<TriggerTask> next : due) {
                    next.entry().run(next.time());
                }
            } finally {
                batch.handOn();
            }
            // Only once the fires are on their way: at 500 jobs an instant, reading each cron's next time first would
            // hold the whole batch back by as many readings.
            for (Timetable.Due<TriggerTask> next : due) {
                next.entry().scheduleNext();
            }
            alarm.arm();
        }
    }

    /**
     * Tells the timer that its clock jumped (a test moved it, see {@code sharding-test}'s {@code MovableClock}): the
     * tasks whose times the jump passed run at once, in a pass as at any wake-up, and the timer arms for the next time
     * from the clock as it reads now. Without it the timer would wake when the real-time delay it armed ends.
     */
    public void clockMoved() {
        alarm.clockMoved();
    }

    /** How many tasks wait for a time: for tests and diagnostics. */
    int size() {
        return alarm.size();
    }

    /** Stops waking; the tasks' futures are cancelled. The real scheduler is closed by its owner. */
    @Override
    public void close() {
        alarm.close().forEach(task -> task.cancel(false));
    }
}
