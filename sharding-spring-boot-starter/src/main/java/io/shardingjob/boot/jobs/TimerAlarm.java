package io.shardingjob.boot.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The {@link FireTimer}'s alarm: every trigger task's next time in one {@link Timetable}, and the one task on the real
 * scheduler, armed for the earliest of them, that wakes the timer for a pass.
 *
 * <p>Guarded by its own monitor. A {@link TriggerTask} holds the same monitor while it checks that it is still
 * scheduled and puts itself here, and while it cancels itself and leaves: a cancel racing with a put then either stops
 * the put or undoes it, and a cancelled task never fires again.
 *
 * <p>The wake-up waits a real-time delay, computed from the clock when it was armed. A clock that jumps (a test's clock
 * moved past a fire time) makes that delay wrong: {@link #clockMoved()} then arms again from the clock as it reads now,
 * so that a task whose time the jump passed runs at once rather than when the old delay ends.
 */
final class TimerAlarm {

    private final ScheduledExecutorService wakeUps;

    private final Clock clock;

    /** The timer's pass over the due tasks, which a wake-up runs. */
    private final Runnable pass;

    private final Timetable<TriggerTask> timetable = new Timetable<>();

    private @Nullable ScheduledFuture<?> wakeUp;

    private @Nullable Instant wakeUpAt;

    /** Which arming the pending wake-up is: one cancelled too late to stop it finds another number and clears nothing. */
    private long armings;

    private boolean closed;

    /**
     * @param wakeUps the executor of the alarm's own task: the scheduler's, whose thread then runs the pass
     * @param clock what the trigger times are compared with
     * @param pass what a wake-up runs
     */
    TimerAlarm(ScheduledExecutorService wakeUps, Clock clock, Runnable pass) {
        this.wakeUps = wakeUps;
        this.clock = clock;
        this.pass = pass;
    }

    /** Takes out every task due by now, the earliest first; none once closed. */
    synchronized List<Timetable.Due<TriggerTask>> takeDue() {
        return closed ? List.of() : timetable.takeDue(clock.instant());
    }

    /**
     * Puts the task at its next time and arms for it.
     *
     * @return {@code false} when closed, the task then left out
     */
    synchronized boolean put(TriggerTask task, Instant next) {
        if (closed) {
            return false;
        }
        timetable.put(task, next);
        arm();
        return true;
    }

    synchronized boolean remove(TriggerTask task) {
        return timetable.remove(task);
    }

    /** How many tasks wait for a time. */
    synchronized int size() {
        return timetable.size();
    }

    /** Arms the wake-up for the earliest time, unless it already wakes before. */
    synchronized void arm() {
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

    /**
     * Arms again from the clock as it reads now, whatever the pending wake-up's delay: the clock jumped. A wake-up
     * already on its way still runs its pass, which finds what is due by then; the pass after it finds the rest.
     */
    synchronized void clockMoved() {
        if (closed) {
            return;
        }
        if (wakeUp != null) {
            wakeUp.cancel(false);
        }
        wakeUp = null;
        wakeUpAt = null;
        arm();
    }

    private void wake(long arming) {
        synchronized (this) {
            if (arming == armings) {
                wakeUp = null;
                wakeUpAt = null;
            }
        }
        pass.run();
    }

    /**
     * Stops waking and takes every task out.
     *
     * @return the tasks that were waiting, for their owner to cancel
     */
    synchronized List<TriggerTask> close() {
        closed = true;
        if (wakeUp != null) {
            wakeUp.cancel(false);
        }
        return timetable.takeDue(Instant.MAX).stream().map(Timetable.Due::entry).toList();
    }
}
