package io.shardingjob.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The stored properties in which two job configurations differ, for the start-up log that tells an operator how the
 * configuration in ZooKeeper, which wins unless {@code overwrite} is set, differs from the one this instance was given.
 */
final class JobConfigurationDifferences {

    private JobConfigurationDifferences() {}

    /** As {@code property: mine -> theirs}; {@code overwrite} is not compared: it is never stored. */
    static List<String> between(JobConfiguration mine, JobConfiguration theirs) {
        List<String> differences = new ArrayList<>();
        compare(differences, JobSetting.CRON, mine.cron(), theirs.cron());
        compare(differences, JobSetting.TIME_ZONE, mine.timeZone(), theirs.timeZone());
        compare(differences, JobSetting.SHARDING_TOTAL_COUNT, mine.shardingTotalCount(), theirs.shardingTotalCount());
        compare(differences, JobSetting.SHARDING_ITEM_PARAMETERS, mine.itemParameters(), theirs.itemParameters());
        compare(differences, JobSetting.JOB_PARAMETER, mine.jobParameter(), theirs.jobParameter());
        compare(differences, JobSetting.FAILOVER, mine.failover(), theirs.failover());
        compare(differences, JobSetting.MISFIRE, mine.misfire(), theirs.misfire());
        compare(differences, JobSetting.MISFIRE_POLICY, mine.misfirePolicy(), theirs.misfirePolicy());
        compare(differences, JobSetting.MONITOR_EXECUTION, mine.monitorExecution(), theirs.monitorExecution());
        compare(differences, JobSetting.STRATEGY, mine.strategy(), theirs.strategy());
        compare(differences, JobSetting.DESCRIPTION, mine.description(), theirs.description());
        compare(differences, JobSetting.DISABLED, mine.disabled(), theirs.disabled());
        compare(differences, JobSetting.RETRIES, mine.retries(), theirs.retries());
        compare(differences, JobSetting.RETRY_BACKOFF, mine.retryBackoff(), theirs.retryBackoff());
        compare(differences, JobSetting.TIMEOUT, mine.timeout(), theirs.timeout());
        compare(differences, JobSetting.DYNAMIC_SHARDING, mine.dynamicSharding(), theirs.dynamicSharding());
        compare(differences, JobSetting.AFTER, String.join(",", mine.after()), String.join(",", theirs.after()));
        compare(differences, JobSetting.ON, mine.on(), theirs.on());
        compare(differences, JobSetting.ITEM_WISE, mine.itemWise(), theirs.itemWise());
        return differences;
    }

    private static void compare(List<String> differences, JobSetting setting, Object mine, Object theirs) {
        if (!Objects.equals(mine, theirs)) {
            differences.add(setting.key() + ": '" + mine + "' -> '" + theirs + "'");
        }
    }
}
