package io.shardingjob.core.config;

import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Duration;
import java.util.List;

/**
 * The default value of every {@link JobSetting}, as constants so that annotation attributes can default to them; a
 * caller names them through {@link JobSetting.Defaults}, which inherits them. Kept apart from the settings' catalogue,
 * which says what each setting is.
 */
abstract sealed class DefaultValues permits JobSetting.Defaults {

    /** No schedule: the job fires only when triggered (Spring's {@code Scheduled.CRON_DISABLED}). */
    public static final String CRON = "-";

    public static final int SHARDING_TOTAL_COUNT = 1;
    public static final String SHARDING_ITEM_PARAMETERS = "";
    public static final String JOB_PARAMETER = "";
    public static final boolean FAILOVER = false;
    public static final boolean MISFIRE = true;
    public static final MisfirePolicy MISFIRE_POLICY = MisfirePolicy.ONCE;
    public static final boolean MONITOR_EXECUTION = true;
    public static final String STRATEGY = ShardingStrategies.DEFAULT;
    public static final String DESCRIPTION = "";
    public static final boolean DISABLED = false;
    public static final boolean OVERWRITE = false;
    public static final int RETRIES = 0;

    /** No pause. */
    public static final Duration RETRY_BACKOFF = Duration.ZERO;

    /** No limit. */
    public static final Duration TIMEOUT = Duration.ZERO;

    public static final boolean DYNAMIC_SHARDING = false;

    /** Follows no job. */
    public static final List<String> AFTER = List.of();

    public static final FollowOn ON = FollowOn.SUCCESS;
    public static final boolean ITEM_WISE = false;
    public static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    public static final Duration RECONCILE_INTERVAL = Duration.ofSeconds(10);
    public static final Duration SHARDING_WAIT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration SHUTDOWN_GRACE_PERIOD = Duration.ofSeconds(20);
    public static final boolean INTERRUPT_ON_CONNECTION_LOSS = true;
    public static final Duration CATCH_UP_HORIZON = Duration.ofMinutes(10);
    public static final Duration LEDGER_RETENTION = Duration.ofMinutes(1);

    DefaultValues() {}
}
