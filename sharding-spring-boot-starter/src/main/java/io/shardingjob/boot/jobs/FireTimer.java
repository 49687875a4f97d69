package io.shardingjob.boot.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * One timer for every job of an instance: it keeps each trigger task's next time in one {@link Timetable} and has one
 * task of its own on the real scheduler, armed for the earliest of them. When it wakes, every task due by then runs, in
 * one pass on the timer's thread, rather than each on its own wake-up of the scheduler: 5,000 jobs are 5,000 entries
 * of a sorted map, not 5,000 scheduled futures.
 *
 * <p>A task run by the timer is a fire's hand-off ({@code ScheduledShardedJob.Fire}): what it gives to
 * {@link #handOff(Runnable)} during the pass is held and, once every due task ran, handed to the fire pool as a batch:
 * as many drains of one shared queue as the pool has threads (or fires, if fewer), so that each fire thread that wakes
 * takes fires until none is left, and none waits for a wake-up of its own.
 *
 * <p>It is a {@link TaskScheduler} so that Spring's {@code ScheduledTaskRegistrar.scheduleTriggerTask} gives each job a
 * {@code ScheduledTask} whose {@code nextExecution()} is the job's entry here ({@link Entry#getDelay}): Boot's
 * {@code scheduledtasks} endpoint lists the jobs as before. Only trigger tasks are the timer's; one-shot and periodic
 * tasks go to the real scheduler unchanged.
 *
 * <p>As Spring's own rescheduling task does, an entry asks its trigger for the next time only once its run returned (and the pass handed its batch on),
 * from the time it was scheduled for and the time the run completed: {@link JobTrigger} relies on it to know the time
 * of the fire in progress. A run that throws is logged and the task goes on, as Spring does for repeating tasks.
 */
public final class FireTimer implements TaskScheduler, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FireTimer.class);

    private final TaskScheduler scheduler;

    private final ScheduledExecutorService wakeUps;

    private final Executor fires;

    private final int fireParallelism;

    private final Clock clock;

    /** Guarded by {@code this}, as are the fields below. */
    private final Timetable<Entry> timetable = new Timetable<>();

    private @Nullable ScheduledFuture<?> wakeUp;

    private @Nullable Instant wakeUpAt;

    /** Which arming the pending wake-up is: one cancelled too late to stop it finds another number and clears nothing. */
    private long armings;

    private boolean closed;

    /** One pass over the due tasks at a time: a wake-up armed during a pass waits for it. */
    private final Object pass = new Object();

    /** The thread passing over the due tasks, whose hand-offs are held in {@link #batch}; only it touches the batch. */
    private volatile @Nullable Thread dispatching;

    private final List<Runnable> batch = new ArrayList<>();

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
        this.wakeUps = wakeUps;
        this.fires = fires;
        this.fireParallelism = Math.max(1, fireParallelism);
        this.clock = clock;
    }

    @Override
    public Clock getClock() {
        return clock;
    }

    /** Adds a task that runs at the trigger's times, from the trigger's first time from now. */
    @Override
    public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        Entry entry = new Entry(task, trigger);
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
        if (Thread.currentThread() == dispatching) {
            batch.add(fire);
        } else {
            fires.execute(fire);
        }
    }

    private void wake(long arming) {
        synchronized (this) {
            if (arming == armings) {
                wakeUp = null;
                wakeUpAt = null;
            }
        }
        dispatchDue();
    }

    /** Runs every task due by now, hands their fires on together, and arms the timer for the next time. */
    void dispatchDue() {
        synchronized (pass) {
            List<Timetable.Due<Entry>> due;
            synchronized (this) {
                if (closed) {
                    return;
                }
                due = timetable.takeDue(clock.instant());
            }
            dispatching = Thread.currentThread();
            try {
                for (Timetable.Due<Entry> next : due) {
                    next.entry().run(next.time());
                }
            } finally {
                dispatching = null;
                handOnBatch();
            }
            // Only once the fires are on their way: at 500 jobs an instant, reading each cron's next time first would
            // hold the whole batch back by as many readings.
            for (Timetable.Due<Entry> next : due) {
                next.entry().scheduleNext();
            }
            synchronized (this) {
                arm();
            }
        }
    }

    private void handOnBatch() {
        if (batch.isEmpty()) {
            return;
        }
        Queue<Runnable> held = new ConcurrentLinkedQueue<>(batch);
        int handed = batch.size();
        batch.clear();
        int drains = Math.min(handed, fireParallelism);
        int taken = 0;
        try {
            for (; taken < drains; taken++) {
                fires.execute(() -> drain(held));
            }
        } catch (RejectedExecutionException ex) {
            // A drain already taken runs every fire; with none taken the pool is shutting down.
            if (taken == 0) {
                log.warn("{} fires not started: the fire pool is shutting down", handed);
            }
        }
    }

    private static void drain(Queue<Runnable> held) {
        for (Runnable fire = held.poll(); fire != null; fire = held.poll()) {
            try {
                fire.run();
            } catch (RuntimeException ex) {
                log.error("A fire failed to start", ex);
            }
        }
    }

    /** Arms the timer's task for the earliest time, unless it already wakes before. Holds the lock. */
    private void arm() {
        Instant earliest = timetable.earliest();
        if (closed || earliest == null || (wakeUpAt != null && !wakeUpAt.isAfter(earliest))) {
            return;
        }
        if (wakeUp != null) {
            wakeUp.cancel(false);
        }
        long nanos = Math.max(0, Duration.between(clock.instant(), earliest).toNanos());
        try {
            long arming = ++armings;
            wakeUp = wakeUps.schedule(() -> wake(arming), nanos, TimeUnit.NANOSECONDS);
            wakeUpAt = earliest;
        } catch (RejectedExecutionException ex) {
            // The scheduler is shutting down: no task fires any more.
            wakeUp = null;
            wakeUpAt = null;
        }
    }

    /** Puts the entry at its next time and arms the timer for it, unless the entry was cancelled meanwhile. */
    private synchronized void put(Entry entry, Instant next) {
        if (entry.finished.isDone() || closed) {
            return;
        }
        entry.next = next;
        timetable.put(entry, next);
        arm();
    }

    private synchronized boolean remove(Entry entry) {
        return timetable.remove(entry);
    }

    /** How many tasks wait for a time: for tests and diagnostics. */
    synchronized int size() {
        return timetable.size();
    }

    /** Stops waking; the tasks' futures are cancelled. The real scheduler is closed by its owner. */
    @Override
    public void close() {
        List<Timetable.Due<Entry>> left;
        synchronized (this) {
            closed = true;
            if (wakeUp != null) {
                wakeUp.cancel(false);
            }
            left = timetable.takeDue(Instant.MAX);
        }
        left.forEach(due -> due.entry().finished.cancel(false));
    }

    /**
     * One trigger task: its place in the timetable, and, as the future Spring keeps in its {@code ScheduledTask}, how
     * long until its next run. Like a repeating task of Spring's, it is done only once cancelled or once its trigger
     * has no next time.
     */
    private final class Entry implements ScheduledFuture<Object> {

        private final Runnable task;

        private final Trigger trigger;

        private final SimpleTriggerContext context = new SimpleTriggerContext(clock);

        /** Completes when the trigger has no next time; cancelled with the task. */
        private final CompletableFuture<Object> finished = new CompletableFuture<>();

        private volatile @Nullable Instant next;

        Entry(Runnable task, Trigger trigger) {
            this.task = task;
            this.trigger = trigger;
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
            } else {
                put(this, time);
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
            synchronized (FireTimer.this) {
                boolean cancelled = finished.cancel(false);
                remove(this);
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
        public Object get(long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            return finished.get(timeout, unit);
        }
    }
}
