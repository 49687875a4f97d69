package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobConfigurationCustomizer;
import io.shardingjob.boot.jobs.ShardedJobConfigurationException;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringUtils;

/**
 * Turns {@code @ShardedJob} methods into validated job configurations: the annotation first, then the
 * {@code sharding.jobs.<name>.*} properties, then the customizers. Every problem is reported as a
 * {@link ShardedJobConfigurationException} naming the job, the property and the fix, before anything touches ZooKeeper.
 */
final class JobConfigurationResolver {

    private final ShardingProperties properties;

    private final ShardingStrategies strategies;

    private final List<ShardedJobConfigurationCustomizer> customizers;

    private final UnaryOperator<String> placeholders;

    JobConfigurationResolver(
            ShardingProperties properties,
            ShardingStrategies strategies,
            List<ShardedJobConfigurationCustomizer> customizers,
            UnaryOperator<String> placeholders) {
        this.properties = properties;
        this.strategies = strategies;
        this.customizers = customizers;
        this.placeholders = placeholders;
    }

    /** Resolves every job, checking names across jobs and that every configured job exists. */
    Map<ShardedJobMethod, JobConfiguration> resolveAll(List<ShardedJobMethod> jobs) {
        Map<String, ShardedJobMethod> byName = new LinkedHashMap<>();
        for (ShardedJobMethod job : jobs) {
            ShardedJobMethod other = byName.putIfAbsent(job.jobName(), job);
            if (other != null) {
                throw new ShardedJobConfigurationException(
                        job.jobName(),
                        "@ShardedJob(name)",
                        "the name is declared twice, by " + other.describe() + " and by " + job.describe(),
                        "Give one of these methods another @ShardedJob(name); job names must be unique within an"
                                + " application because each name is one job in ZooKeeper.",
                        null);
            }
        }
        for (String key : properties.getJobs().keySet()) {
            boolean known = byName.keySet().stream()
                    .anyMatch(name -> ShardingProperties.canonical(name).equals(ShardingProperties.canonical(key)));
            if (!known) {
                throw new ShardedJobConfigurationException(
                        key,
                        "sharding.jobs." + key,
                        "sharding.jobs." + key + " is set, but no @ShardedJob method declares a job named '" + key
                                + "' (jobs: " + byName.keySet() + ")",
                        "Rename sharding.jobs." + key + " to the name of one of the jobs " + byName.keySet()
                                + ", or remove it.",
                        null);
            }
        }
        Map<ShardedJobMethod, JobConfiguration> resolved = new LinkedHashMap<>();
        jobs.forEach(job -> resolved.put(job, resolve(job)));
        return resolved;
    }

    /** Resolves and validates one job. */
    JobConfiguration resolve(ShardedJobMethod job) {
        String name = job.jobName();
        ShardedJob annotation = job.annotation();
        String key = properties.jobKey(name).orElse(name);
        ShardedJobProperties overrides = properties.getJobs().getOrDefault(key, new ShardedJobProperties());
        JobConfiguration.Builder builder = JobConfiguration.builder(name)
                .cron(pick(overrides.getCron(), placeholders.apply(annotation.cron())))
                .shardingTotalCount(pick(overrides.getShardingTotalCount(), annotation.shardingTotalCount()))
                .shardingItemParameters(pick(
                        overrides.getShardingItemParameters(), placeholders.apply(annotation.shardingItemParameters())))
                .jobParameter(pick(overrides.getJobParameter(), placeholders.apply(annotation.jobParameter())))
                .failover(pick(overrides.getFailover(), annotation.failover()))
                .misfire(pick(overrides.getMisfire(), annotation.misfire()))
                .misfirePolicy(pick(overrides.getMisfirePolicy(), annotation.misfirePolicy()))
                .monitorExecution(pick(overrides.getMonitorExecution(), annotation.monitorExecution()))
                .strategy(pick(overrides.getStrategy(), placeholders.apply(annotation.strategy())))
                .description(pick(overrides.getDescription(), placeholders.apply(annotation.description())))
                .disabled(pick(overrides.getDisabled(), annotation.disabled()))
                .overwrite(pick(overrides.getOverwrite(), annotation.overwrite()))
                .retries(pick(overrides.getRetries(), annotation.retries()))
                .dynamicSharding(pick(overrides.getDynamicSharding(), annotation.dynamicSharding()))
                .after(pick(overrides.getAfter(), after(annotation)))
                .on(pick(overrides.getOn(), annotation.on()))
                .itemWise(pick(overrides.getItemWise(), annotation.itemWise()));
        Duration retryBackoff =
                duration(job, key, "retryBackoff", overrides.getRetryBackoff(), annotation.retryBackoff());
        if (retryBackoff != null) {
            builder.retryBackoff(retryBackoff);
        }
        Duration timeout = duration(job, key, "timeout", overrides.getTimeout(), annotation.timeout());
        if (timeout != null) {
            builder.timeout(timeout);
        }
        String timeZone = pick(overrides.getTimeZone(), placeholders.apply(annotation.timeZone()));
        if (!timeZone.isBlank()) {
            builder.timeZone(timeZone);
        }
        JobConfiguration configuration = build(job, key, builder);
        if (!configuration.isOnDemand()) {
            check(job, key, "cron", () -> CronExpression.parse(configuration.cron()));
        }
        if (strategies.find(configuration.strategy()).isEmpty()) {
            throw invalid(
                    job,
                    key,
                    "strategy",
                    "unknown sharding strategy '" + configuration.strategy() + "'",
                    "one of " + strategies.names() + ", or the name() of a ShardingStrategy bean you declare",
                    null);
        }
        return configuration;
    }

    /** The annotation's job names, each entry with its placeholders resolved and read as a comma-separated list. */
    private List<String> after(ShardedJob annotation) {
        return Arrays.stream(annotation.after())
                .flatMap(entry -> Arrays.stream(StringUtils.tokenizeToStringArray(placeholders.apply(entry), ",")))
                .toList();
    }

    /**
     * A property wins; the annotation's text is read like a property ({@code 5s}, {@code PT5S}); null when neither is
     * set, so that the core's default applies.
     */
    private @Nullable Duration duration(
            ShardedJobMethod job, String key, String property, @Nullable Duration configured, String declared) {
        if (configured != null) {
            return configured;
        }
        String text = placeholders.apply(declared).trim();
        if (text.isEmpty()) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(text);
        } catch (IllegalArgumentException ex) {
            throw invalid(job, key, property, "'" + text + "' is not a duration", expectation(property), ex);
        }
    }

    private JobConfiguration build(ShardedJobMethod job, String key, JobConfiguration.Builder builder) {
        try {
            for (ShardedJobConfigurationCustomizer customizer : customizers) {
                customizer.customize(job.jobName(), builder);
            }
            return builder.build();
        } catch (JobConfigurationException ex) {
            String expectation = ex.conflictingProperty()
                    .map(other -> expectation(ex.property(), other) + ", or set " + where(job, key, other) + " to "
                            + expectation(other, ex.property()))
                    .orElseGet(() -> expectation(ex.property()));
            throw invalid(job, key, ex.property(), ex.getMessage(), expectation, ex);
        }
    }

    /**
     * A job its coordinator refused at start, past one of ZooKeeper's limits (the coordination budget): the message
     * carries the arithmetic; the failure analysis names the setting and what to change.
     */
    ShardedJobConfigurationException refusedAtStart(ShardedJobMethod job, JobConfigurationException ex) {
        String key = properties.jobKey(job.jobName()).orElse(job.jobName());
        return new ShardedJobConfigurationException(
                job.jobName(),
                setting(key, ex.property()),
                "cannot run within ZooKeeper's limits: " + ex.getMessage(),
                "Set " + where(job, key, ex.property()) + " so that the job fits: " + fitting(ex.property()) + ".",
                ex);
    }

    private static String fitting(String property) {
        return switch (property) {
            case "shardingTotalCount" ->
                "fewer items per fire (let each item cover a larger part of the data), or give the application's"
                        + " ZooKeeper client a larger jute.maxbuffer, as large as the servers'";
            case "shardingItemParameters", "jobParameter", "configuration" ->
                "a shorter value (keep large data elsewhere and pass a key to it)";
            default -> "a value within the limit the message gives";
        };
    }

    private void check(ShardedJobMethod job, String key, String property, Runnable validation) {
        try {
            validation.run();
        } catch (IllegalArgumentException ex) {
            throw invalid(job, key, property, ex.getMessage(), expectation(property), ex);
        }
    }

    private static ShardedJobConfigurationException invalid(
            ShardedJobMethod job,
            String key,
            String property,
            String problem,
            String expectation,
            @Nullable Throwable cause) {
        return new ShardedJobConfigurationException(
                job.jobName(),
                setting(key, property),
                "invalid " + property + " of the job declared by " + job.describe() + ": " + problem,
                "Set " + where(job, key, property) + " to " + expectation + ".",
                cause);
    }

    /** The {@code sharding.jobs.*} key of a job's property, e.g. {@code sharding.jobs.orderSync.item-wise}. */
    static String setting(String key, String property) {
        return "sharding.jobs." + key + "." + kebab(property);
    }

    /** Where a property is set: the {@code sharding.jobs.*} key, or the annotation for the name. */
    static String where(ShardedJobMethod job, String key, String property) {
        String annotation = "@ShardedJob(" + property + ") on " + job.describe();
        return "name".equals(property) ? annotation : setting(key, property) + " (or " + annotation + ")";
    }

    /**
     * What a property must be so that it no longer contradicts another, for the failure analysis; the action offers
     * both ways out, since changing either property fixes the contradiction.
     */
    private static String expectation(String property, String conflictingProperty) {
        return switch (property + "/" + conflictingProperty) {
            case "shardingItemParameters/dynamicSharding" ->
                "an empty value, since with dynamic sharding the items follow the live instances and no item has a"
                        + " fixed parameter";
            case "dynamicSharding/shardingItemParameters" ->
                "false to keep a fixed sharding-total-count with a parameter per item";
            default -> "a value that agrees with " + kebab(conflictingProperty);
        };
    }

    /** What a valid value of a property looks like, for the failure analysis. */
    private static String expectation(String property) {
        return switch (property) {
            case "cron" ->
                "a cron expression of six fields, seconds first, such as '0/10 * * * * *', or '-' for a job that fires"
                        + " only when triggered";
            case "timeZone" -> "a zone id such as 'UTC' or 'Asia/Shanghai'";
            case "shardingTotalCount" ->
                "a whole number from 1 to " + JobConfiguration.MAX_SHARDING_TOTAL_COUNT
                        + " (for more, let each item cover a larger part of the data)";
            case "shardingItemParameters" ->
                "item=parameter pairs for items 0 to sharding-total-count - 1, such as"
                        + " '0=Beijing,1=Shanghai' (or raise sharding-total-count)";
            case "retries" -> "a whole number of 0 or more";
            case "retryBackoff", "timeout" -> "a duration of 0 or more, such as '500ms', '5s' or 'PT5S'";
            case "name" -> "letters, digits, '.', '_' and '-', starting with a letter or digit";
            case "after" ->
                "the names of other jobs, each once, such as 'extract,load': jobs of this application or of another"
                        + " service of its namespace";
            case "itemWise" ->
                "false, or name the jobs it follows in after, with fixed items (no dynamic sharding) as many as theirs";
            default -> "a valid value";
        };
    }

    static String kebab(String property) {
        return property.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    private static <T> T pick(@Nullable T configured, T declared) {
        return configured != null ? configured : declared;
    }
}
