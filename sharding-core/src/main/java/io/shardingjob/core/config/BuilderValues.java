package io.shardingjob.core.config;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * The values a {@link JobConfiguration.Builder} collects, each starting at its default ({@link JobSetting.Defaults}),
 * and its setters, each described by the {@link JobSetting} of its name: kept apart from the configuration and its
 * checks, which {@code build()} applies to all of them at once. Its public setters are the builder's; a caller never
 * names this class.
 */
abstract sealed class BuilderValues permits JobConfiguration.Builder {

    final String name;
    String cron = JobSetting.Defaults.CRON;
    ZoneId timeZone = ZoneId.systemDefault();
    String timeZoneText;
    int shardingTotalCount = JobSetting.Defaults.SHARDING_TOTAL_COUNT;
    String shardingItemParameters = JobSetting.Defaults.SHARDING_ITEM_PARAMETERS;
    String jobParameter = JobSetting.Defaults.JOB_PARAMETER;
    boolean failover = JobSetting.Defaults.FAILOVER;
    boolean misfire = JobSetting.Defaults.MISFIRE;
    MisfirePolicy misfirePolicy = JobSetting.Defaults.MISFIRE_POLICY;
    boolean monitorExecution = JobSetting.Defaults.MONITOR_EXECUTION;
    String strategy = JobSetting.Defaults.STRATEGY;
    String description = JobSetting.Defaults.DESCRIPTION;
    boolean disabled = JobSetting.Defaults.DISABLED;
    boolean overwrite = JobSetting.Defaults.OVERWRITE;
    int retries = JobSetting.Defaults.RETRIES;
    Duration retryBackoff = JobSetting.Defaults.RETRY_BACKOFF;
    Duration timeout = JobSetting.Defaults.TIMEOUT;
    boolean dynamicSharding = JobSetting.Defaults.DYNAMIC_SHARDING;
    List<String> after = JobSetting.Defaults.AFTER;
    FollowOn on = JobSetting.Defaults.ON;
    boolean itemWise = JobSetting.Defaults.ITEM_WISE;

    BuilderValues(String name) {
        this.name = name;
    }

    private JobConfiguration.Builder self() {
        return (JobConfiguration.Builder) this;
    }

    public JobConfiguration.Builder cron(String cron) {
        this.cron = cron;
        return self();
    }

    public JobConfiguration.Builder timeZone(ZoneId timeZone) {
        this.timeZone = timeZone;
        this.timeZoneText = null;
        return self();
    }

    /** A zone id such as {@code Asia/Shanghai} or {@code UTC}; checked in {@link #build()}. */
    public JobConfiguration.Builder timeZone(String timeZone) {
        this.timeZoneText = timeZone;
        return self();
    }

    public JobConfiguration.Builder shardingTotalCount(int shardingTotalCount) {
        this.shardingTotalCount = shardingTotalCount;
        return self();
    }

    /** Item parameters in the form {@code 0=Beijing,1=Shanghai}; checked in {@link #build()}. */
    public JobConfiguration.Builder shardingItemParameters(String shardingItemParameters) {
        this.shardingItemParameters = shardingItemParameters;
        return self();
    }

    public JobConfiguration.Builder jobParameter(String jobParameter) {
        this.jobParameter = jobParameter;
        return self();
    }

    public JobConfiguration.Builder failover(boolean failover) {
        this.failover = failover;
        return self();
    }

    public JobConfiguration.Builder misfire(boolean misfire) {
        this.misfire = misfire;
        return self();
    }

    public JobConfiguration.Builder misfirePolicy(MisfirePolicy misfirePolicy) {
        this.misfirePolicy = misfirePolicy;
        return self();
    }

    public JobConfiguration.Builder monitorExecution(boolean monitorExecution) {
        this.monitorExecution = monitorExecution;
        return self();
    }

    public JobConfiguration.Builder strategy(String strategy) {
        this.strategy = strategy;
        return self();
    }

    public JobConfiguration.Builder description(String description) {
        this.description = description;
        return self();
    }

    public JobConfiguration.Builder disabled(boolean disabled) {
        this.disabled = disabled;
        return self();
    }

    public JobConfiguration.Builder overwrite(boolean overwrite) {
        this.overwrite = overwrite;
        return self();
    }

    public JobConfiguration.Builder retries(int retries) {
        this.retries = retries;
        return self();
    }

    public JobConfiguration.Builder retryBackoff(Duration retryBackoff) {
        this.retryBackoff = retryBackoff;
        return self();
    }

    public JobConfiguration.Builder timeout(Duration timeout) {
        this.timeout = timeout;
        return self();
    }

    public JobConfiguration.Builder dynamicSharding(boolean dynamicSharding) {
        this.dynamicSharding = dynamicSharding;
        return self();
    }

    public JobConfiguration.Builder after(List<String> after) {
        this.after = after == null ? List.of() : new ArrayList<>(after);
        return self();
    }

    public JobConfiguration.Builder after(String... after) {
        return after(List.of(after));
    }

    public JobConfiguration.Builder on(FollowOn on) {
        this.on = on;
        return self();
    }

    public JobConfiguration.Builder itemWise(boolean itemWise) {
        this.itemWise = itemWise;
        return self();
    }
}
