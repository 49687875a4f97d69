package io.shardingjob.core.internal.registry;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.config.JobSetting;
import io.shardingjob.core.config.MisfirePolicy;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Stores a job configuration in ZooKeeper as {@code key=value} lines (UTF-8, {@link Properties} escapes), so that an
 * operator can read it with {@code get} in zkCli and edit it with {@code set}. Unknown keys are ignored and missing
 * ones take their defaults, so that older and newer versions can share a registry.
 */
public final class JobConfigurationCodec {

    private JobConfigurationCodec() {}

    public static byte[] encode(JobConfiguration configuration) {
        StringBuilder text = new StringBuilder();
        appendLine(text, JobSetting.CRON.key(), configuration.cron());
        appendLine(text, JobSetting.TIME_ZONE.key(), configuration.timeZone().getId());
        appendLine(text, JobSetting.SHARDING_TOTAL_COUNT.key(), configuration.shardingTotalCount());
        appendLine(text, JobSetting.SHARDING_ITEM_PARAMETERS.key(), configuration.itemParameters());
        appendLine(text, JobSetting.JOB_PARAMETER.key(), configuration.jobParameter());
        appendLine(text, JobSetting.FAILOVER.key(), configuration.failover());
        appendLine(text, JobSetting.MISFIRE.key(), configuration.misfire());
        appendLine(text, JobSetting.MISFIRE_POLICY.key(), configuration.misfirePolicy());
        appendLine(text, JobSetting.MONITOR_EXECUTION.key(), configuration.monitorExecution());
        appendLine(text, JobSetting.STRATEGY.key(), configuration.strategy());
        appendLine(text, JobSetting.DESCRIPTION.key(), configuration.description());
        appendLine(text, JobSetting.DISABLED.key(), configuration.disabled());
        appendLine(text, JobSetting.RETRIES.key(), configuration.retries());
        appendLine(text, JobSetting.RETRY_BACKOFF.key(), configuration.retryBackoff());
        appendLine(text, JobSetting.TIMEOUT.key(), configuration.timeout());
        appendLine(text, JobSetting.DYNAMIC_SHARDING.key(), configuration.dynamicSharding());
        appendLine(text, JobSetting.AFTER.key(), String.join(",", configuration.after()));
        appendLine(text, JobSetting.ON.key(), configuration.on());
        appendLine(text, JobSetting.ITEM_WISE.key(), configuration.itemWise());
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A missing key takes the default of its {@link JobSetting}: the builder's, what leaving a setting unset means
     * everywhere else.
     *
     * @throws JobConfigurationException when a stored value is invalid, naming the job and the property
     */
    public static JobConfiguration decode(String jobName, byte[] data) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException ex) {
            throw new JobConfigurationException(jobName, "configuration", "the stored text is unreadable: " + ex);
        }
        Stored stored = new Stored(jobName, properties);
        JobConfiguration.Builder builder = JobConfiguration.builder(jobName);
        stored.text(JobSetting.CRON).ifPresent(builder::cron);
        stored.text(JobSetting.TIME_ZONE).ifPresent(builder::timeZone);
        stored.integer(JobSetting.SHARDING_TOTAL_COUNT).ifPresent(builder::shardingTotalCount);
        stored.text(JobSetting.SHARDING_ITEM_PARAMETERS).ifPresent(builder::shardingItemParameters);
        stored.text(JobSetting.JOB_PARAMETER).ifPresent(builder::jobParameter);
        stored.bool(JobSetting.FAILOVER).ifPresent(builder::failover);
        stored.bool(JobSetting.MISFIRE).ifPresent(builder::misfire);
        stored.misfirePolicy(JobSetting.MISFIRE_POLICY).ifPresent(builder::misfirePolicy);
        stored.bool(JobSetting.MONITOR_EXECUTION).ifPresent(builder::monitorExecution);
        stored.text(JobSetting.STRATEGY).ifPresent(builder::strategy);
        stored.text(JobSetting.DESCRIPTION).ifPresent(builder::description);
        stored.bool(JobSetting.DISABLED).ifPresent(builder::disabled);
        stored.integer(JobSetting.RETRIES).ifPresent(builder::retries);
        stored.duration(JobSetting.RETRY_BACKOFF).ifPresent(builder::retryBackoff);
        stored.duration(JobSetting.TIMEOUT).ifPresent(builder::timeout);
        stored.bool(JobSetting.DYNAMIC_SHARDING).ifPresent(builder::dynamicSharding);
        stored.text(JobSetting.AFTER).map(JobConfigurationCodec::names).ifPresent(builder::after);
        stored.text(JobSetting.ON)
                .filter(value -> !value.isBlank())
                .map(value -> FollowOn.parse(jobName, value))
                .ifPresent(builder::on);
        stored.bool(JobSetting.ITEM_WISE).ifPresent(builder::itemWise);
        return builder.build();
    }

    /** A list of job names as written in one value: {@code settle, bill}, blanks ignored. */
    public static java.util.List<String> names(String value) {
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .toList();
    }

    /** The stored values of one job, each read by its setting's key; absent when the key is not stored. */
    private record Stored(String jobName, Properties properties) {

        Optional<String> text(JobSetting setting) {
            return Optional.ofNullable(properties.getProperty(setting.key()));
        }

        Optional<Integer> integer(JobSetting setting) {
            return parsed(setting, text(setting), value -> Integer.parseInt(value.trim()), "is not a whole number");
        }

        Optional<Boolean> bool(JobSetting setting) {
            return parsed(
                    setting,
                    text(setting),
                    value -> switch (value.trim().toLowerCase(Locale.ROOT)) {
                        case "true" -> true;
                        case "false" -> false;
                        default -> throw new IllegalArgumentException(value);
                    },
                    "is neither true nor false");
        }

        /** ISO-8601 as {@link Duration#toString()} writes it ({@code PT1.5S}); blank is the default. */
        Optional<Duration> duration(JobSetting setting) {
            return parsed(
                    setting,
                    text(setting).filter(value -> !value.isBlank()),
                    value -> Duration.parse(value.trim()),
                    "is not an ISO-8601 duration such as PT5S");
        }

        /** Blank is the default. */
        Optional<MisfirePolicy> misfirePolicy(JobSetting setting) {
            return parsed(
                    setting,
                    text(setting).filter(value -> !value.isBlank()),
                    value -> MisfirePolicy.valueOf(value.trim().toUpperCase(Locale.ROOT)),
                    "is not one of "
                            + Arrays.stream(MisfirePolicy.values())
                                    .map(policy -> policy.name().toLowerCase(Locale.ROOT))
                                    .collect(Collectors.joining(", ")));
        }

        /** A stored value the parser refuses fails the decoding, naming the job, the key and what the value is not. */
        private <T> Optional<T> parsed(
                JobSetting setting, Optional<String> stored, Function<String, T> parse, String refusal) {
            return stored.map(value -> {
                try {
                    return parse.apply(value);
                } catch (IllegalArgumentException | DateTimeParseException ex) {
                    throw new JobConfigurationException(jobName, setting.key(), "'" + value + "' " + refusal);
                }
            });
        }
    }

    /**
     * Appends {@code key=value} and a line break, the value escaped as {@link java.util.Properties#store} escapes it, so
     * that any text, line breaks included, stays on its line and {@link java.util.Properties#load} reads it back: the
     * format of the stored configuration, which other ZooKeeper nodes of a job (a manual fire's origin) share.
     */
    public static void appendLine(StringBuilder text, String key, Object value) {
        text.append(key).append('=');
        String string = String.valueOf(value);
        for (int i = 0; i < string.length(); i++) {
            char c = string.charAt(i);
            switch (c) {
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                case '\f' -> text.append("\\f");
                default -> {
                    if (i == 0 && c == ' ') {
                        text.append("\\ ");
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        text.append('\n');
    }
}
