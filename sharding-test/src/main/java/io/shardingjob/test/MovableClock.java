package io.shardingjob.test;

import io.shardingjob.core.testing.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The time every instance of a {@link ShardingCluster} tells: their jobs' schedules, the fire times, the times of their
 * claims and runs. It runs with real time from where the test put it, so that time still passes between two steps of a
 * test as the jobs expect it to; {@link #advance} and {@link #moveTo} make it jump forward, and every instance's timer
 * wakes for the fires the jump passed, rather than when the real-time delay it was waiting for ends.
 *
 * <p>It starts at the real time. It only moves forward: a schedule's time, a fire's and a claim's are never read going
 * back. ZooKeeper's sessions and timeouts stay on real time: moving the clock by a day expires nobody.
 *
 * <p>It is each instance's {@link Clock} bean, primary over one the application declares.
 */
public final class MovableClock extends Clock {

    /** The real time, moved on as far as the test moved it. Only {@link #moveBy} moves it, under this clock's monitor. */
    private final SettableClock time = SettableClock.running();

    /** What a jump wakes: the timers of the cluster's instances. */
    private final List<Runnable> moves = new CopyOnWriteArrayList<>();

    MovableClock() {}

    @Override
    public Instant instant() {
        return time.instant();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Refused: the instances share one clock, whose zone is UTC; a job's own time zone is in its configuration. */
    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("The instances share one clock, in UTC; a job's cron names its zone");
    }

    /**
     * Moves the clock forward by {@code duration}.
     *
     * @return the time it reads now
     * @throws IllegalArgumentException when the duration is negative
     */
    public Instant advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("The clock only moves forward; cannot advance it by " + duration);
        }
        return moveBy(duration);
    }

    /**
     * Moves the clock forward to {@code time}: the fires of a schedule up to it are due, and a job whose cron names that
     * time fires at it.
     *
     * @return {@code time}, the fire time of a job whose cron names it
     * @throws IllegalArgumentException when the clock already reads later than {@code time}
     */
    public Instant moveTo(Instant time) {
        synchronized (this) {
            Instant now = instant();
            if (now.isAfter(time)) {
                throw new IllegalArgumentException(
                        "The clock only moves forward: it reads " + now + ", later than " + time);
            }
            moveBy(Duration.between(now, time));
        }
        return time;
    }

    /**
     * Moves the clock forward to {@code time} in {@code zone}, the zone a job's cron is read in: {@code
     * moveTo(LocalDateTime.of(2026, 12, 1, 2, 0), ZoneId.of("Europe/Paris"))} for a job with cron {@code 0 0 2 * * *}
     * in Paris.
     *
     * @return that time as an instant: the fire time of a job whose cron names it
     */
    public Instant moveTo(LocalDateTime time, ZoneId zone) {
        return moveTo(time.atZone(zone).toInstant());
    }

    /** Adds a jump's listener: the cluster's, which wakes its instances' timers. */
    void onMove(Runnable listener) {
        moves.add(listener);
    }

    private Instant moveBy(Duration duration) {
        synchronized (this) {
            time.advance(duration);
        }
        moves.forEach(Runnable::run);
        return instant();
    }

    @Override
    public String toString() {
        return "MovableClock[" + instant() + "]";
    }
}
