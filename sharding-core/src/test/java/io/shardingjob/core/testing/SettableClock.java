package io.shardingjob.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock a test moves on, for code that takes a {@code Clock}: it stands still between the test's moves, or, made
 * with {@link #running()}, runs with real time from where the test put it, for code whose schedules must go on between
 * two moves (a job's cron read on the application's clock).
 */
public final class SettableClock extends Clock {

    /** Standing still: the time. Running: the real time's epoch plus how far the test moved it. */
    private final AtomicReference<Instant> set;

    private final boolean running;

    /** Stands at the real time of its creation. */
    public SettableClock() {
        this(Instant.now());
    }

    public SettableClock(Instant start) {
        this(start, false);
    }

    private SettableClock(Instant set, boolean running) {
        this.set = new AtomicReference<>(set);
        this.running = running;
    }

    /** A clock that reads the real time until the test moves it, then the real time that far ahead. */
    public static SettableClock running() {
        return new SettableClock(Instant.EPOCH, true);
    }

    public void advance(Duration duration) {
        set.updateAndGet(instant -> instant.plus(duration));
    }

    @Override
    public Instant instant() {
        return running ? Instant.now().plus(Duration.between(Instant.EPOCH, set.get())) : set.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock has one zone");
    }
}
