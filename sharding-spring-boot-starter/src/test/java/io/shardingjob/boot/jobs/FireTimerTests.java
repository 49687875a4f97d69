package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.testing.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/**
 * The instance's one timer, on a clock the test moves from just after 10:00: its real wake-up is armed on a scheduler
 * for about an hour of real time, so that only the passes the test runs ({@link FireTimer#dispatchDue()}) dispatch
 * anything.
 */
class FireTimerTests {

    private static final Instant ELEVEN = Instant.parse("2026-11-26T11:00:00Z");

    private final SettableClock clock =
            new SettableClock(ELEVEN.minus(Duration.ofMinutes(60)).plusMillis(1));

    private final ScheduledExecutorService wakeUps = Executors.newSingleThreadScheduledExecutor();

    private final ThreadPoolTaskScheduler others = new ThreadPoolTaskScheduler();

    /** The fire pool: counts the tasks handed to it and runs them on the caller. */
    private final AtomicInteger handedToThePool = new AtomicInteger();

    private final FireTimer timer = new FireTimer(
            others,
            wakeUps,
            task -> {
                handedToThePool.incrementAndGet();
                task.run();
            },
            2,
            clock);

    private final List<String> fired = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        timer.close();
        wakeUps.shutdownNow();
        others.shutdown();
    }

    @Test
    void dispatchesEveryJobDueAtAnInstantInOnePassAndHandsTheirFiresToThePoolAsOneBatch() {
        for (String job : List.of("a", "b", "c")) {
            timer.schedule(firing(job), cron("0 0 * * * *"));
        }
        timer.schedule(firing("quarter past"), cron("0 15 11 * * *"));
        moveTo(ELEVEN.minusMillis(1));
        timer.dispatchDue();
        assertThat(fired).isEmpty();

        moveTo(ELEVEN);
        timer.dispatchDue();

        assertThat(fired).containsExactly("a", "b", "c");
        // Three fires, two fire threads: two drains of one queue, not a hand-off per fire.
        assertThat(handedToThePool).hasValue(2);
    }

    @Test
    void aJobsNextTimeFollowsItsFireAndShowsAsTheFuturesDelay() {
        ScheduledFuture<?> job = timer.schedule(firing("a"), cron("0 0 * * * *"));
        assertThat(job.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(3_599_999);

        moveTo(ELEVEN);
        timer.dispatchDue();

        assertThat(fired).containsExactly("a");
        assertThat(job.getDelay(TimeUnit.SECONDS)).isEqualTo(3_600);
        assertThat(timer.size()).isOne();
    }

    @Test
    void aCronChangeMovesTheJobToItsNewTimeAndNotAlsoItsOld() {
        ScheduledFuture<?> old = timer.schedule(firing("a"), cron("0 0 * * * *"));

        // How ScheduledShardedJob follows a change: the old task cancelled, the job scheduled by its new cron.
        old.cancel(false);
        timer.schedule(firing("a"), cron("0 15 11 * * *"));
        moveTo(ELEVEN);
        timer.dispatchDue();
        assertThat(fired).isEmpty();

        moveTo(ELEVEN.plus(Duration.ofMinutes(15)));
        timer.dispatchDue();
        assertThat(fired).containsExactly("a");
        assertThat(timer.size()).isOne();
    }

    @Test
    void aRemovedJobNeverFiresAgain() {
        ScheduledFuture<?> removed = timer.schedule(firing("removed"), cron("0 0 * * * *"));
        timer.schedule(firing("kept"), cron("0 0 * * * *"));

        assertThat(removed.cancel(false)).isTrue();
        for (int hour = 0; hour < 3; hour++) {
            moveTo(ELEVEN.plus(Duration.ofHours(hour)));
            timer.dispatchDue();
        }

        assertThat(fired).containsExactly("kept", "kept", "kept");
        assertThat(removed.isCancelled()).isTrue();
        assertThat(timer.size()).isOne();
    }

    @Test
    void aTriggerWithNoNextTimeEndsItsTaskAsAJobOnDemandHasNone() {
        ScheduledFuture<?> onDemand = timer.schedule(firing("never"), context -> null);

        assertThat(onDemand.isDone()).isTrue();
        assertThat(timer.size()).isZero();
    }

    @Test
    void aFailingFireIsLoggedAndTheJobKeepsItsSchedule() {
        timer.schedule(
                () -> {
                    fired.add("failed");
                    throw new IllegalStateException("the job's hand-off failed");
                },
                cron("0 0 * * * *"));

        moveTo(ELEVEN);
        timer.dispatchDue();
        moveTo(ELEVEN.plus(Duration.ofHours(1)));
        timer.dispatchDue();

        assertThat(fired).containsExactly("failed", "failed");
    }

    @Test
    void aHandOffOutsideAPassGoesToThePoolAtOnceAsAManualFireDoes() {
        timer.handOff(() -> fired.add("manual"));

        assertThat(fired).containsExactly("manual");
        assertThat(handedToThePool).hasValue(1);
    }

    @Test
    void wakesByItselfAtTheEarliestTimeOnTheRealClock() {
        try (FireTimer real = new FireTimer(others, wakeUps, Runnable::run, 2, Clock.systemUTC())) {
            Instant soon = Instant.now().plusMillis(100);
            AtomicInteger asked = new AtomicInteger();
            Trigger once = context -> asked.getAndIncrement() == 0 ? soon : null;

            ScheduledFuture<?> task = real.schedule(() -> real.handOff(() -> fired.add("soon")), once);

            await().atMost(Duration.ofSeconds(10)).until(() -> fired.contains("soon"));
            await().atMost(Duration.ofSeconds(10)).until(task::isDone);
            assertThat(fired).containsExactly("soon");
        }
    }

    @Test
    void aClockMovedPastTheTimeItWaitsAnHourForWakesItAtOnceAndItArmsForTheNextTimeFromTheClock() {
        // Armed on the real scheduler for about an hour: only the clock's move can make it fire within the test.
        timer.schedule(firing("eleven"), cron("0 0 * * * *"));
        moveTo(ELEVEN.plusSeconds(1));
        assertThat(fired).isEmpty();

        timer.clockMoved();

        await().atMost(Duration.ofSeconds(10)).until(() -> fired.contains("eleven"));
        assertThat(fired).containsExactly("eleven");
        // The next time is noon, an hour of real time from the clock now: nothing more fires by itself.
        assertThat(timer.size()).isEqualTo(1);
        timer.clockMoved();
        assertThat(fired).containsExactly("eleven");
    }

    private void moveTo(Instant time) {
        clock.advance(Duration.between(clock.instant(), time));
    }

    /** A job's fire as ScheduledShardedJob's task is: a hand-off of the fire to the pool. */
    private Runnable firing(String job) {
        return () -> timer.handOff(() -> fired.add(job));
    }

    private static CronTrigger cron(String cron) {
        return new CronTrigger(cron, ZoneOffset.UTC);
    }
}
