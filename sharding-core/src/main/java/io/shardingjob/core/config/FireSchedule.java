package io.shardingjob.core.config;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * When a job is due: the core keeps no cron parser of its own, so whoever triggers fires (the starter, with Spring's
 * {@code CronExpression}) says which fire times its schedule has. The ledger's keeper uses it to record the fires that
 * came due while no instance could claim them (a ZooKeeper outage, every instance down), so that the misfire policy
 * decides them instead of nobody.
 *
 * <p>A job on demand ({@link JobConfiguration#isOnDemand()}) has no schedule: the core never asks for its fires nor
 * checks its cron {@code -}, so an implementation needs no case for it.
 */
@FunctionalInterface
public interface FireSchedule {

    /** No schedule: only the fires this instance is told about are known to be due. */
    FireSchedule NONE = (configuration, after) -> null;

    /**
     * The first fire time strictly after {@code after} under the job's current configuration, or null when there is
     * none.
     */
    @Nullable
    Instant nextFireAfter(JobConfiguration configuration, Instant after);

    /**
     * Checks, before a configuration is stored (a job defined or its cron changed while the program runs), that this
     * schedule can follow its cron, so that no instance is handed one it cannot read. The core reads no cron itself:
     * by default nothing is checked beyond {@link JobConfiguration}'s own checks (six fields).
     *
     * @throws IllegalArgumentException saying what is wrong with the cron, without repeating it
     */
    default void check(JobConfiguration configuration) {}

    /** Whether the schedule fires at this instant, to the millisecond (the ledger's precision). */
    default boolean firesAt(JobConfiguration configuration, Instant fireTime) {
        Instant next = nextFireAfter(configuration, fireTime.minusMillis(1));
        return next != null && fireTimeOf(next).equals(fireTimeOf(fireTime));
    }

    /**
     * The time of the fire scheduled at this instant as the ledger keys it: to the millisecond. Made once where a fire
     * enters the core; every run of the fire, here or elsewhere, carries the same time.
     */
    static Instant fireTimeOf(Instant scheduled) {
        return scheduled.truncatedTo(ChronoUnit.MILLIS);
    }
}
