package io.shardingjob.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that stands still until the test moves it on, for code that takes a {@code Clock}. */
public final class SettableClock extends Clock {

    private final AtomicReference<Instant> now;

    /** Stands at the real time of its creation. */
    public SettableClock() {
        this(Instant.now());
    }

    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public void advance(Duration duration) {
        now.updateAndGet(instant -> instant.plus(duration));
    }

    @Override
    public Instant instant() {
        return now.get();
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
