package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a daylight-saving change does to a job's fires, as a table over real transitions of real zones: a time skipped
 * by a gap does not fire, a time repeated by an overlap fires once, at its first occurrence. The trigger and the
 * ledger's schedule read the same {@link ZonedCron}.
 */
class DaylightSavingFiresTests {

    @ParameterizedTest(name = "{0} ''{1}'' after {2}: {3}")
    @CsvSource(delimiter = '|', textBlock = """
            # Berlin, 29 March 2026: 02:00 +01:00 becomes 03:00 +02:00.
            Europe/Berlin       | 0 30 2 * * *   | 2026-03-28T12:00:00Z | 2026-03-30T02:30+02:00
            Europe/Berlin       | 0 */15 * * * * | 2026-03-29T00:40:00Z | 2026-03-29T01:45+01:00 2026-03-29T03:00+02:00 2026-03-29T03:15+02:00
            Europe/Berlin       | 0 0 * * * *    | 2026-03-28T23:30:00Z | 2026-03-29T01:00+01:00 2026-03-29T03:00+02:00 2026-03-29T04:00+02:00
            # Berlin, 25 October 2026: 03:00 +02:00 becomes 02:00 +01:00; 02:00 to 03:00 happens twice.
            Europe/Berlin       | 0 30 2 * * *   | 2026-10-24T12:00:00Z | 2026-10-25T02:30+02:00 2026-10-26T02:30+01:00
            Europe/Berlin       | 0 */15 * * * * | 2026-10-25T00:40:00Z | 2026-10-25T02:45+02:00 2026-10-25T03:00+01:00 2026-10-25T03:15+01:00
            Europe/Berlin       | 0 0 * * * *    | 2026-10-24T23:30:00Z | 2026-10-25T02:00+02:00 2026-10-25T03:00+01:00 2026-10-25T04:00+01:00
            # From inside the second 02:00 to 03:00: its times fired in the first.
            Europe/Berlin       | 0 */15 * * * * | 2026-10-25T01:10:00Z | 2026-10-25T03:00+01:00 2026-10-25T03:15+01:00
            # New York, 8 March 2026: 02:00 -05:00 becomes 03:00 -04:00.
            America/New_York    | 0 30 2 * * *   | 2026-03-07T12:00:00Z | 2026-03-09T02:30-04:00
            America/New_York    | 0 0 * * * *    | 2026-03-08T06:30:00Z | 2026-03-08T03:00-04:00 2026-03-08T04:00-04:00
            # New York, 1 November 2026: 02:00 -04:00 becomes 01:00 -05:00; 01:00 to 02:00 happens twice.
            America/New_York    | 0 30 1 * * *   | 2026-10-31T12:00:00Z | 2026-11-01T01:30-04:00 2026-11-02T01:30-05:00
            America/New_York    | 0 30 2 * * *   | 2026-10-31T12:00:00Z | 2026-11-01T02:30-05:00 2026-11-02T02:30-05:00
            America/New_York    | 0 0 * * * *    | 2026-11-01T04:30:00Z | 2026-11-01T01:00-04:00 2026-11-01T02:00-05:00
            # Lord Howe, 5 April 2026: 02:00 +11:00 becomes 01:30 +10:30; 01:30 to 02:00 happens twice.
            Australia/Lord_Howe | 0 0 * * * *    | 2026-04-04T13:30:00Z | 2026-04-05T01:00+11:00 2026-04-05T02:00+10:30 2026-04-05T03:00+10:30
            Australia/Lord_Howe | 0 0 * * * *    | 2026-04-04T14:20:00Z | 2026-04-05T02:00+10:30 2026-04-05T03:00+10:30
            Australia/Lord_Howe | 0 */15 * * * * | 2026-04-04T14:40:00Z | 2026-04-05T01:45+11:00 2026-04-05T02:00+10:30 2026-04-05T02:15+10:30
            Australia/Lord_Howe | 0 30 1 * * *   | 2026-04-04T12:00:00Z | 2026-04-05T01:30+11:00 2026-04-06T01:30+10:30
            # Lord Howe, 4 October 2026: 02:00 +10:30 becomes 02:30 +11:00.
            Australia/Lord_Howe | 0 15 2 * * *   | 2026-10-03T12:00:00Z | 2026-10-05T02:15+11:00
            Australia/Lord_Howe | 0 30 2 * * *   | 2026-10-03T12:00:00Z | 2026-10-04T02:30+11:00 2026-10-05T02:30+11:00
            Australia/Lord_Howe | 0 */15 * * * * | 2026-10-03T15:10:00Z | 2026-10-04T01:45+10:30 2026-10-04T02:30+11:00
            """)
    void theFiresAroundAChangeAreTheWallClockTimesThatExistEachOnce(
            String zone, String cron, Instant after, String expected) {
        ZonedCron zoned = ZonedCron.parse(cron, ZoneId.of(zone));
        List<OffsetDateTime> fires = new ArrayList<>();
        Instant from = after;
        List<String> times = Arrays.asList(expected.split(" "));
        for (int i = 0; i < times.size(); i++) {
            Instant next = zoned.nextAfter(from);
            fires.add(next.atZone(ZoneId.of(zone)).toOffsetDateTime());
            from = next;
        }

        assertThat(fires).extracting(OffsetDateTime::toString).containsExactlyElementsOf(times);
    }

    @Test
    void theLedgersScheduleKnowsTheFirstOccurrenceOfARepeatedTimeAsAFireAndNotTheSecond() {
        CronFireSchedule schedule = new CronFireSchedule(new JobCrons(), Clock.systemUTC());
        JobConfiguration nightly = JobConfiguration.builder("nightly")
                .cron("0 30 2 * * *")
                .timeZone(ZoneId.of("Europe/Berlin"))
                .shardingTotalCount(2)
                .build();

        assertThat(schedule.firesAt(
                        nightly, OffsetDateTime.parse("2026-10-25T02:30+02:00").toInstant()))
                .isTrue();
        assertThat(schedule.firesAt(
                        nightly, OffsetDateTime.parse("2026-10-25T02:30+01:00").toInstant()))
                .isFalse();
        // The skipped 02:30 of 29 March is no instant at all; the instant its offset would give is no fire.
        assertThat(schedule.firesAt(
                        nightly, OffsetDateTime.parse("2026-03-29T02:30+01:00").toInstant()))
                .isFalse();
        assertThat(FireSchedule.fireTimeOf(schedule.nextFireAfter(nightly, Instant.parse("2026-03-28T12:00:00Z"))))
                .isEqualTo(OffsetDateTime.parse("2026-03-30T02:30+02:00").toInstant());
    }
}
