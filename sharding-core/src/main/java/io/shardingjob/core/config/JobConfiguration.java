package io.shardingjob.core.config;

import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The validated, immutable configuration of one job. Build it with {@link #builder(String)}; every invalid value is
 * rejected with a {@link JobConfigurationException} naming the job and the property. Each property is the
 * {@link JobSetting} of its name, which defines its meaning and default once; what follows adds what its one line
 * leaves out.
 *
 * @param name the job name, also its ZooKeeper node name
 * @param cron {@link #ON_DEMAND} is also what null or blank become
 * @param overwrite otherwise the stored configuration wins and differences are logged; not stored itself
 * @param dynamicSharding at most {@link #MAX_SHARDING_TOTAL_COUNT} items (instances beyond it get none), so
 *     {@code shardingTotalCount} is ignored when resharding and {@code itemParameters} must be empty: an item is then a
 *     place in the cluster, not a fixed part of the data a parameter could name
 * @param after with several, it fires once all of them completed the same fire time. Whether the jobs named exist,
 *     and form no cycle, is checked with the graph of the namespace's jobs ({@code StoredJobs.problemsJoining})
 * @param itemWise needs {@code after}, and the same item count as every upstream (checked with the graph, as
 *     {@code after} is)
 */
public record JobConfiguration(
        String name,
        String cron,
        ZoneId timeZone,
        int shardingTotalCount,
        ItemParameters itemParameters,
        String jobParameter,
        boolean failover,
        boolean misfire,
        boolean monitorExecution,
        String strategy,
        String description,
        boolean disabled,
        boolean overwrite,
        int retries,
        Duration retryBackoff,
        Duration timeout,
        boolean dynamicSharding,
        MisfirePolicy misfirePolicy,
        List<String> after,
        FollowOn on,
        boolean itemWise) {

    /**
     * The most items a job may have.
     *
     * <p>ZooKeeper refuses a node or a request larger than {@code jute.maxbuffer} (1,048,575 bytes by default, the
     * same on every server and client) by dropping the connection; the client sends the same request again, and the
     * instance ends up losing its session. What grows with the item count, measured with ZooKeeper's own
     * serialisation:
     *
     * <ul>
     *   <li>the assignment node lists every item, as ranges where it can ({@code 0-2,9}): even with no two neighbours
     *       on one instance, across 1,000 instances with 63-character ids, 10,000 items take 121,941 bytes;
     *   <li>the fire ledger's requests do not: claims and their updates go in multi-operations of at most 500
     *       operations (a claim takes 213 to 345 bytes with short or long names), about 170 kB each, whatever the
     *       count;
     *   <li>the ledger holds one claim node per item per retained fire, and an audit or the leader's upkeep reads the
     *       claims of every fire after the watermark: with 10,000 items a fire is 10,000 nodes and some 2.5 MB of data
     *       on every server, which a fire every few seconds and the default one-minute retention keep in the low
     *       hundreds of thousands of nodes.
     * </ul>
     *
     * The limit is set by the last: beyond 10,000 items per fire, the ledger, not the request size, outgrows what a
     * ZooKeeper ensemble holds comfortably in memory.
     */
    public static final int MAX_SHARDING_TOTAL_COUNT = 10_000;

    /**
     * The largest job parameter, in UTF-8 bytes (16 KiB): a configured {@link #jobParameter()} as it is stored, and
     * the one a trigger gives ({@code JobCoordinator.trigger}), which is refused with an
     * {@link io.shardingjob.core.operation.InvalidOperationException} before anything is written. A trigger's parameter
     * is stored in its fire's node of the fire ledger, and the ledger's audits read eight fire nodes with their claims
     * in one ZooKeeper answer: with {@link #MAX_SHARDING_TOTAL_COUNT} items, eight fires of twice this parameter would
     * not fit in one.
     */
    public static final int MAX_JOB_PARAMETER_BYTES = 16 * 1024;

    /**
     * The cron of a job on demand, {@code -}, as Spring's {@code Scheduled.CRON_DISABLED}: the job has no schedule and
     * fires only when triggered (an operator's fire, {@code JobCoordinator.trigger}). It is registered, elected and
     * sharded like any job, and no fire of it is ever due: nothing is made up for a schedule it does not have. A null
     * or blank cron is stored as this, so that every instance reads the same.
     */
    public static final String ON_DEMAND = JobSetting.Defaults.CRON;

    public JobConfiguration {
        JobConfigurationChecks.checkName(name);
        cron = cron == null || cron.isBlank() ? ON_DEMAND : cron.trim();
        if (!cron.equals(ON_DEMAND)) {
            JobConfigurationChecks.checkCronFields(name, cron);
        }
        JobConfigurationChecks.checkTimeZone(name, timeZone);
        JobConfigurationChecks.checkShardingTotalCount(name, shardingTotalCount);
        itemParameters = itemParameters == null ? ItemParameters.none() : itemParameters;
        JobConfigurationChecks.checkNoItemParametersWithDynamicSharding(
                name, dynamicSharding, itemParameters.toString());
        // Re-parse so that a record built directly is checked against its own count.
        itemParameters = ItemParameters.parse(name, itemParameters.toString(), shardingTotalCount);
        jobParameter = jobParameter == null ? JobSetting.Defaults.JOB_PARAMETER : jobParameter;
        strategy = JobConfigurationChecks.checkStrategy(name, strategy);
        description = description == null ? JobSetting.Defaults.DESCRIPTION : description;
        JobConfigurationChecks.checkRetries(name, retries);
        retryBackoff = retryBackoff == null ? JobSetting.Defaults.RETRY_BACKOFF : retryBackoff;
        JobConfigurationChecks.checkNotNegative(name, "retryBackoff", retryBackoff);
        misfirePolicy = misfirePolicy == null ? JobSetting.Defaults.MISFIRE_POLICY : misfirePolicy;
        timeout = timeout == null ? JobSetting.Defaults.TIMEOUT : timeout;
        JobConfigurationChecks.checkNotNegative(name, "timeout", timeout);
        after = JobConfigurationChecks.checkAfter(name, after);
        on = on == null ? JobSetting.Defaults.ON : on;
        JobConfigurationChecks.checkItemWise(name, itemWise, after, dynamicSharding);
    }

    /** Whether the job follows other jobs ({@link #after()} is not empty). */
    public boolean followsJobs() {
        return !after.isEmpty();
    }

    /** Whether the job has no schedule and fires only when triggered: its cron is {@link #ON_DEMAND}. */
    public boolean isOnDemand() {
        return cron.equals(ON_DEMAND);
    }

    /** Whether items have a time limit. */
    public boolean hasTimeout() {
        return !timeout.isZero();
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding every value of this configuration, to change some of them. */
    public Builder toBuilder() {
        return new Builder(name)
                .cron(cron)
                .timeZone(timeZone)
                .shardingTotalCount(shardingTotalCount)
                .shardingItemParameters(itemParameters.toString())
                .jobParameter(jobParameter)
                .failover(failover)
                .misfire(misfire)
                .monitorExecution(monitorExecution)
                .strategy(strategy)
                .description(description)
                .disabled(disabled)
                .overwrite(overwrite)
                .retries(retries)
                .retryBackoff(retryBackoff)
                .timeout(timeout)
                .dynamicSharding(dynamicSharding)
                .misfirePolicy(misfirePolicy)
                .after(after)
                .on(on)
                .itemWise(itemWise);
    }

    /**
     * The stored properties that differ between this configuration and another, as {@code property: this -> other},
     * for the start-up log. {@code overwrite} is not compared: it is never stored.
     */
    public List<String> differencesTo(JobConfiguration other) {
        List<String> differences = new ArrayList<>();
        compare(differences, JobSetting.CRON, cron, other.cron);
        compare(differences, JobSetting.TIME_ZONE, timeZone, other.timeZone);
        compare(differences, JobSetting.SHARDING_TOTAL_COUNT, shardingTotalCount, other.shardingTotalCount);
        compare(differences, JobSetting.SHARDING_ITEM_PARAMETERS, itemParameters, other.itemParameters);
        compare(differences, JobSetting.JOB_PARAMETER, jobParameter, other.jobParameter);
        compare(differences, JobSetting.FAILOVER, failover, other.failover);
        compare(differences, JobSetting.MISFIRE, misfire, other.misfire);
        compare(differences, JobSetting.MISFIRE_POLICY, misfirePolicy, other.misfirePolicy);
        compare(differences, JobSetting.MONITOR_EXECUTION, monitorExecution, other.monitorExecution);
        compare(differences, JobSetting.STRATEGY, strategy, other.strategy);
        compare(differences, JobSetting.DESCRIPTION, description, other.description);
        compare(differences, JobSetting.DISABLED, disabled, other.disabled);
        compare(differences, JobSetting.RETRIES, retries, other.retries);
        compare(differences, JobSetting.RETRY_BACKOFF, retryBackoff, other.retryBackoff);
        compare(differences, JobSetting.TIMEOUT, timeout, other.timeout);
        compare(differences, JobSetting.DYNAMIC_SHARDING, dynamicSharding, other.dynamicSharding);
        compare(differences, JobSetting.AFTER, String.join(",", after), String.join(",", other.after));
        compare(differences, JobSetting.ON, on, other.on);
        compare(differences, JobSetting.ITEM_WISE, itemWise, other.itemWise);
        return differences;
    }

    private static void compare(List<String> differences, JobSetting setting, Object mine, Object theirs) {
        if (!Objects.equals(mine, theirs)) {
            differences.add(setting.key() + ": '" + mine + "' -> '" + theirs + "'");
        }
    }

    /**
     * Collects values, each starting at its default ({@link JobSetting.Defaults}), and validates them all in {@link
     * #build()}. Its setters are in {@link BuilderValues}.
     */
    public static final class Builder extends BuilderValues {

        private Builder(String name) {
            super(name);
        }

        /** @throws JobConfigurationException naming the job and the first invalid property */
        public JobConfiguration build() {
            ZoneId zone = timeZoneText == null
                    ? timeZone
                    : JobConfigurationChecks.parseTimeZone(String.valueOf(name), timeZoneText);
            ItemParameters parameters = JobConfigurationChecks.parseItemParameters(
                    String.valueOf(name), shardingItemParameters, shardingTotalCount, dynamicSharding);
            return new JobConfiguration(
                    name,
                    cron,
                    zone,
                    shardingTotalCount,
                    parameters,
                    jobParameter,
                    failover,
                    misfire,
                    monitorExecution,
                    strategy,
                    description,
                    disabled,
                    overwrite,
                    retries,
                    retryBackoff,
                    timeout,
                    dynamicSharding,
                    misfirePolicy,
                    after,
                    on,
                    itemWise);
        }
    }
}
