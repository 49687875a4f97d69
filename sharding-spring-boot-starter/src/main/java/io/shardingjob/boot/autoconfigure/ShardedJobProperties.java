package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.MisfirePolicy;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Settings of one job under {@code sharding.jobs.<name>}; each one left unset keeps the value of the job's
 * {@code @ShardedJob}. Each field is a {@link io.shardingjob.core.config.JobSetting} of the same name, described in the
 * same words; a test checks both.
 */
public class ShardedJobProperties {

    /** The schedule: six fields, seconds first, as Spring's CronExpression reads it, or "-" to fire only when triggered. */
    private @Nullable String cron;

    /** The zone the cron is evaluated in, such as Asia/Shanghai; the system zone by default. */
    private @Nullable String timeZone;

    /** The number of items each fire is split into. */
    private @Nullable Integer shardingTotalCount;

    /** The parameter of each item, written 0=Beijing,1=Shanghai; none with dynamic sharding. */
    private @Nullable String shardingItemParameters;

    /** A parameter handed to every item. */
    private @Nullable String jobParameter;

    /** Whether the items of a crashed instance run elsewhere at once. */
    private @Nullable Boolean failover;

    /** Whether fires an item missed are made up as the misfire policy says; false means the skip policy. */
    private @Nullable Boolean misfire;

    /** What happens to the fires an item missed while misfire is on: once, all or skip. */
    private @Nullable MisfirePolicy misfirePolicy;

    /** Whether items are marked running; kept for compatibility, as the fire ledger records every run. */
    private @Nullable Boolean monitorExecution;

    /** The name of the sharding strategy: average, odevity, rotate, sticky, or a custom strategy's name. */
    private @Nullable String strategy;

    /** Free text for operators. */
    private @Nullable String description;

    /** Whether the job is paused: it keeps its assignment but runs nothing. */
    private @Nullable Boolean disabled;

    /** Whether this configuration replaces the one stored in ZooKeeper at start-up. */
    private @Nullable Boolean overwrite;

    /** How many times a failed item runs again, with the sharding context it was first fired with. */
    private @Nullable Integer retries;

    /** The pause before each retry. */
    private @Nullable Duration retryBackoff;

    /** How long one run of one item may take before it is interrupted and recorded as timed out; 0 for no limit. */
    private @Nullable Duration timeout;

    /** Whether the number of items follows the number of live, enabled instances, one item each; no item parameters. */
    private @Nullable Boolean dynamicSharding;

    /** The jobs this job follows: it fires once for every fire of theirs that completed, with its fire time. */
    private @Nullable List<String> after;

    /** Which upstream fires this job follows: success (every item succeeded) or completion (every item ended). */
    private @Nullable FollowOn on;

    /** Whether item i runs as soon as item i of the upstream fire succeeded; needs the upstream's item count. */
    private @Nullable Boolean itemWise;

    public @Nullable List<String> getAfter() {
        return after;
    }

    public void setAfter(@Nullable List<String> after) {
        this.after = after;
    }

    public @Nullable FollowOn getOn() {
        return on;
    }

    public void setOn(@Nullable FollowOn on) {
        this.on = on;
    }

    public @Nullable Boolean getItemWise() {
        return itemWise;
    }

    public void setItemWise(@Nullable Boolean itemWise) {
        this.itemWise = itemWise;
    }

    public @Nullable Integer getRetries() {
        return retries;
    }

    public void setRetries(@Nullable Integer retries) {
        this.retries = retries;
    }

    public @Nullable Duration getRetryBackoff() {
        return retryBackoff;
    }

    public void setRetryBackoff(@Nullable Duration retryBackoff) {
        this.retryBackoff = retryBackoff;
    }

    public @Nullable Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(@Nullable Duration timeout) {
        this.timeout = timeout;
    }

    public @Nullable Boolean getDynamicSharding() {
        return dynamicSharding;
    }

    public void setDynamicSharding(@Nullable Boolean dynamicSharding) {
        this.dynamicSharding = dynamicSharding;
    }

    public @Nullable String getCron() {
        return cron;
    }

    public void setCron(@Nullable String cron) {
        this.cron = cron;
    }

    public @Nullable String getTimeZone() {
        return timeZone;
    }

    public void setTimeZone(@Nullable String timeZone) {
        this.timeZone = timeZone;
    }

    public @Nullable Integer getShardingTotalCount() {
        return shardingTotalCount;
    }

    public void setShardingTotalCount(@Nullable Integer shardingTotalCount) {
        this.shardingTotalCount = shardingTotalCount;
    }

    public @Nullable String getShardingItemParameters() {
        return shardingItemParameters;
    }

    public void setShardingItemParameters(@Nullable String shardingItemParameters) {
        this.shardingItemParameters = shardingItemParameters;
    }

    public @Nullable String getJobParameter() {
        return jobParameter;
    }

    public void setJobParameter(@Nullable String jobParameter) {
        this.jobParameter = jobParameter;
    }

    public @Nullable Boolean getFailover() {
        return failover;
    }

    public void setFailover(@Nullable Boolean failover) {
        this.failover = failover;
    }

    public @Nullable Boolean getMisfire() {
        return misfire;
    }

    public void setMisfire(@Nullable Boolean misfire) {
        this.misfire = misfire;
    }

    public @Nullable MisfirePolicy getMisfirePolicy() {
        return misfirePolicy;
    }

    public void setMisfirePolicy(@Nullable MisfirePolicy misfirePolicy) {
        this.misfirePolicy = misfirePolicy;
    }

    public @Nullable Boolean getMonitorExecution() {
        return monitorExecution;
    }

    public void setMonitorExecution(@Nullable Boolean monitorExecution) {
        this.monitorExecution = monitorExecution;
    }

    public @Nullable String getStrategy() {
        return strategy;
    }

    public void setStrategy(@Nullable String strategy) {
        this.strategy = strategy;
    }

    public @Nullable String getDescription() {
        return description;
    }

    public void setDescription(@Nullable String description) {
        this.description = description;
    }

    public @Nullable Boolean getDisabled() {
        return disabled;
    }

    public void setDisabled(@Nullable Boolean disabled) {
        this.disabled = disabled;
    }

    public @Nullable Boolean getOverwrite() {
        return overwrite;
    }

    public void setOverwrite(@Nullable Boolean overwrite) {
        this.overwrite = overwrite;
    }
}
