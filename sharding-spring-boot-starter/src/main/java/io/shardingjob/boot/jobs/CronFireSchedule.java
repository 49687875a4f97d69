package io.shardingjob.boot.jobs;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A job's fire times from its cron, read the way {@link JobTrigger} schedules it (the same {@link JobCrons}), so that
 * the ledger knows which fires came due while no instance could claim them. A job on demand has none.
 */
public final class CronFireSchedule implements FireSchedule {

    private final JobCrons crons;

    private final Clock clock;

    /** @param clock the jobs' time, from which "it never fires" is judged */
    CronFireSchedule(JobCrons crons, Clock clock) {
        this.crons = crons;
        this.clock = clock;
    }

    @Override
    public @Nullable Instant nextFireAfter(JobConfiguration configuration, Instant after) {
        if (configuration.isOnDemand()) {
            return null;
        }
        return crons.nextAfter(configuration.name(), configuration.cron(), configuration.timeZone(), after);
    }

    /**
     * Refuses a cron Spring cannot read, or one that never fires (the 30th of February): the trigger would fire such a
     * job never, on every instance.
     */
    @Override
    public void check(JobConfiguration configuration) {
        if (configuration.isOnDemand()) {
            return;
        }
        try {
            crons.parse(configuration.cron(), configuration.timeZone());
        } catch (IllegalArgumentException ex) {
            String reason = String.valueOf(ex.getMessage());
            throw new IllegalArgumentException("not a cron Spring can read ("
                    + (reason.length() > 200 ? reason.substring(0, 200) + "..." : reason)
                    + "); six fields, seconds first, e.g. '0 0/5 * * * *'");
        }
        if (nextFireAfter(configuration, clock.instant()) == null) {
            throw new IllegalArgumentException("it never fires");
        }
    }
}
