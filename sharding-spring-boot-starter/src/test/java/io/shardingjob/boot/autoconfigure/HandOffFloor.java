package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.jobs.ShardedJobExecutors;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.CronTrigger;

/**
 * The fire delay this machine gives with no library at all: the starter's own three pools ({@link ShardedJobExecutors},
 * default sizes) and one Spring {@link CronTrigger} per job, each fire handed from the scheduler to the fire pool and
 * from there to the item pool, where an empty item takes its start time. What a fire of the library costs is what its
 * delay adds to this floor; on a machine of two cores the floor is thread wake-up latency, not work.
 */
final class HandOffFloor {

    private HandOffFloor() {}

    /**
     * @param crons the cron of each job
     * @return the delays in milliseconds, from each fire's scheduled time to its item's start, of the fires scheduled in
     *     {@code [from, to)}
     */
    static List<Double> delays(
            List<String> crons, int schedulerThreads, int fireThreads, int itemThreads, Instant from, Instant to)
            throws InterruptedException {
        return delays(crons, schedulerThreads, fireThreads, itemThreads, from, to, false);
    }

    /**
     * The same fires on the starter's one {@link io.shardingjob.boot.jobs.FireTimer} rather than a Spring trigger per
     * job: what the timer's pass and batched hand-off cost, or save, with no library behind them.
     */
    static List<Double> delaysOnOneTimer(
            List<String> crons, int schedulerThreads, int fireThreads, int itemThreads, Instant from, Instant to)
            throws InterruptedException {
        return delays(crons, schedulerThreads, fireThreads, itemThreads, from, to, true);
    }

    private static List<Double> delays(
            List<String> crons,
            int schedulerThreads,
            int fireThreads,
            int itemThreads,
            Instant from,
            Instant to,
            boolean oneTimer)
            throws InterruptedException {
        List<Double> delays = Collections.synchronizedList(new ArrayList<>());
        List<ScheduledFuture<?>> schedules = new ArrayList<>();
        try (ShardedJobExecutors executors = ShardedJobExecutors.platform(schedulerThreads, fireThreads, itemThreads)) {
            TaskScheduler scheduler = oneTimer ? executors.timer() : executors.scheduler();
            for (String cron : crons) {
                RememberingTrigger trigger = new RememberingTrigger(new CronTrigger(cron));
                schedules.add(scheduler.schedule(
                        () -> {
                            Instant scheduled = trigger.scheduled();
                            Runnable fire = () -> executors.items().execute(() -> {
                                Instant start = Instant.now();
                                if (!scheduled.isBefore(from) && scheduled.isBefore(to)) {
                                    delays.add(
                                            Duration.between(scheduled, start).toNanos() / 1_000_000.0);
                                }
                            });
                            if (oneTimer) {
                                executors.timer().handOff(fire);
                            } else {
                                executors.fires().execute(fire);
                            }
                        },
                        trigger));
            }
            long millis = Duration.between(Instant.now(), to.plusSeconds(1)).toMillis();
            if (millis > 0) {
                Thread.sleep(millis);
            }
            schedules.forEach(schedule -> schedule.cancel(false));
        }
        return List.copyOf(delays);
    }

    /** Remembers the time it scheduled: Spring asks for the next only after a run, so it is that of the run going on. */
    private static final class RememberingTrigger implements Trigger {

        private final Trigger delegate;

        private final AtomicReference<Instant> scheduled = new AtomicReference<>(Instant.MAX);

        RememberingTrigger(Trigger delegate) {
            this.delegate = delegate;
        }

        @Override
        public @Nullable Instant nextExecution(TriggerContext context) {
            Instant next = delegate.nextExecution(context);
            if (next != null) {
                scheduled.set(next);
            }
            return next;
        }

        Instant scheduled() {
            return scheduled.get();
        }
    }
}
