package io.shardingjob.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The stored properties in which two job configurations differ, for the start-up log that tells an operator how the
 * configuration in ZooKeeper, which wins unless {@code overwrite} is set, differs from the one this instance was given.
 * It lists every stored property once, as the codec does, and lives apart from {@link JobConfiguration} so that the
 * record reads as its values and their rules.
 */
final class JobConfigurationDifferences {

    private JobConfigurationDifferences() {}

    /** As {@code property: mine -> theirs}; {@code overwrite} is not compared: it is never stored. */
    static List<String> between(JobConfiguration mine, JobConfiguration theirs) {
        List<String> differences = new ArrayList<>();
        compare(differences, JobSetting.CRON.key(), mine.cron(), theirs.cron());
        compare(differences, JobSetting.TIME_ZONE.key(), mine.timeZone(), theirs.timeZone());
        compare(
                differences,
                JobSetting.SHARDING_TOTAL_COUNT.key(),
                mine.shardingTotalCount(),
                theirs.shardingTotalCount());
        compare(differences, JobSetting.SHARDING_ITEM_PARAMETERS.key(), mine.itemParameters(), theirs.itemParameters());
        compare(differences, JobSetting.JOB_PARAMETER.key(), mine.jobParameter(), theirs.jobParameter());
        compare(differences, JobSetting.FAILOVER.key(), mine.failover(), theirs.failover());
        compare(differences, JobSetting.MISFIRE.key(), mine.misfire(), theirs.misfire());
        compare(differences, JobSetting.MISFIRE_POLICY.key(), mine.misfirePolicy(), theirs.misfirePolicy());
        compare(differences, JobSetting.MONITOR_EXECUTION.key(), mine.monitorExecution(), theirs.monitorExecution());
        compare(differences, JobSetting.STRATEGY.key(), mine.strategy(), theirs.strategy());
        compare(differences, JobSetting.DESCRIPTION.key(), mine.description(), theirs.description());
        compare(differences, JobSetting.DISABLED.key(), mine.disabled(), theirs.disabled());
        compare(differences, JobSetting.RETRIES.key(), mine.retries(), theirs.retries());
        compare(differences, JobSetting.RETRY_BACKOFF.key(), mine.retryBackoff(), theirs.retryBackoff());
        compare(differences, JobSetting.TIMEOUT.key(), mine.timeout(), theirs.timeout());
        compare(differences, JobSetting.DYNAMIC_SHARDING.key(), mine.dynamicSharding(), theirs.dynamicSharding());
        compare(differences, JobSetting.AFTER.key(), String.join(",", mine.after()), String.join(",", theirs.after()));
        compare(differences, JobSetting.ON.key(), mine.on(), theirs.on());
        compare(differences, JobSetting.ITEM_WISE.key(), mine.itemWise(), theirs.itemWise());
        return differences;
    }

    private static void compare(List<String> differences, String property, Object mine, Object theirs) {
        if (!Objects.equals(mine, theirs)) {
            differences.add(property + ": '" + mine + "' -> '" + theirs + "'");
        }
    }
}
