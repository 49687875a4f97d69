package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** The fire times the ledger counts as due are the cron's, read as the trigger reads it. */
class CronFireScheduleTests {

    private final JobCrons crons = new JobCrons();

    private final CronFireSchedule schedule = new CronFireSchedule(crons, java.time.Clock.systemUTC());

    private final ZoneId shanghai = ZoneId.of("Asia/Shanghai");

    @Test
    void theNextFireIsTheCronsInTheJobsTimeZone() {
        JobConfiguration daily = job("0 0 2 * * *", shanghai);
        Instant after = ZonedDateTime.now(shanghai).withHour(3).toInstant();

        Instant next = schedule.nextFireAfter(daily, after);

        assertThat(next.atZone(shanghai).getHour()).isEqualTo(2);
        assertThat(next).isAfter(after).isBefore(after.plusSeconds(24 * 3600));
    }

    @Test
    void aChangedCronAppliesAtOnceAndAnUnreadableOneFollowsTheCronTheTriggerKept() {
        Instant after = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
        assertThat(schedule.nextFireAfter(job("0 * * * * *", ZoneId.of("UTC")), after))
                .isEqualTo(after.plusSeconds(60));
        assertThat(schedule.nextFireAfter(job("*/10 * * * * *", ZoneId.of("UTC")), after))
                .isEqualTo(after.plusSeconds(10));
        // Before the job's trigger read any cron, an unreadable one makes no fire due.
        assertThat(schedule.nextFireAfter(job("x x x x x x", ZoneId.of("UTC")), after))
                .isNull();

        crons.inForce("settlement", "*/10 * * * * *", ZoneId.of("UTC"));

        assertThat(schedule.nextFireAfter(job("x x x x x x", ZoneId.of("UTC")), after))
                .isEqualTo(after.plusSeconds(10));
    }

    private static JobConfiguration job(String cron, ZoneId zone) {
        return JobConfiguration.builder("settlement")
                .cron(cron)
                .timeZone(zone)
                .shardingTotalCount(2)
                .build();
    }
}
