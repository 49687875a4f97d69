package io.shardingjob.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoField;
import org.junit.jupiter.api.Test;

/** A fire is known by its time to the millisecond, wherever it enters the core. */
class FireScheduleTest {

    /** An hour from now, 123.456789 ms into its second: a time a cron may hand over with nanoseconds. */
    private final Instant scheduled =
            Instant.now().plus(Duration.ofHours(1)).with(ChronoField.NANO_OF_SECOND, 123_456_789);

    private final Instant toTheMillisecond = scheduled.with(ChronoField.NANO_OF_SECOND, 123_000_000);

    private final JobConfiguration configuration = JobConfiguration.builder("fire-times")
            .cron("0 0 2 * * *")
            .shardingTotalCount(2)
            .build();

    @Test
    void aFireTimeIsItsScheduledTimeToTheMillisecond() {
        assertThat(FireSchedule.fireTimeOf(scheduled)).isEqualTo(toTheMillisecond);
        assertThat(FireSchedule.fireTimeOf(FireSchedule.fireTimeOf(scheduled)))
                .as("made once, it does not change when made again")
                .isEqualTo(FireSchedule.fireTimeOf(scheduled));
    }

    @Test
    void aScheduleFiresAtAnInstantThatDiffersFromItsFireTimeOnlyBelowTheMillisecond() {
        FireSchedule once = (config, after) -> scheduled.isAfter(after) ? scheduled : null;

        assertThat(once.firesAt(configuration, toTheMillisecond)).isTrue();
        assertThat(once.firesAt(configuration, scheduled.plus(Duration.ofNanos(400_000))))
                .isTrue();
        assertThat(once.firesAt(configuration, scheduled.plusMillis(1))).isFalse();
    }
}
