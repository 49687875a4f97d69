package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * A job's fire times from its cron, read the way {@link JobTrigger} schedules it (Spring's {@link CronExpression} in
 * the job's time zone), so that the ledger knows which fires came due while no instance could claim them.
 */
final class CronFireSchedule implements FireSchedule {

    private @Nullable String cronText;

    private @Nullable ZoneId zone;

    private @Nullable CronExpression expression;

    @Override
    public synchronized @Nullable Instant nextFireAfter(JobConfiguration configuration, Instant after) {
        CronExpression current = expression(configuration);
        if (current == null) {
            return null;
        }
        ZonedDateTime next = current.next(after.atZone(configuration.timeZone()));
        return next == null ? null : next.toInstant();
    }

    /**
     * Refuses a cron Spring cannot read, or one that never fires (the 30th of February): the trigger would fire such a
     * job never, on every instance.
     */
    @Override
    public void check(JobConfiguration configuration) {
        CronExpression parsed;
        try {
            parsed = CronExpression.parse(configuration.cron());
        } catch (IllegalArgumentException ex) {
            String reason = String.valueOf(ex.getMessage());
            throw new IllegalArgumentException("not a cron Spring can read ("
                    + (reason.length() > 200 ? reason.substring(0, 200) + "..." : reason)
                    + "); six fields, seconds first, e.g. '0 0/5 * * * *'");
        }
        if (parsed.next(ZonedDateTime.now(configuration.timeZone())) == null) {
            throw new IllegalArgumentException("it never fires");
        }
    }

    private @Nullable CronExpression expression(JobConfiguration configuration) {
        if (expression == null
                || !Objects.equals(cronText, configuration.cron())
                || !Objects.equals(zone, configuration.timeZone())) {
            try {
                expression = CronExpression.parse(configuration.cron());
            } catch (IllegalArgumentException invalid) {
                // The trigger reports an invalid cron stored in ZooKeeper and keeps the old one; no fire is due by it.
                return expression;
            }
            cronText = configuration.cron();
            zone = configuration.timeZone();
        }
        return expression;
    }
}
