package io.shardingjob.core.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * Stores a job configuration in ZooKeeper as {@code key=value} lines (UTF-8, {@link Properties} escapes), so that an
 * operator can read it with {@code get} in zkCli and edit it with {@code set}. Unknown keys are ignored and missing
 * ones take their defaults, so that older and newer versions can share a registry.
 */
public final class JobConfigurationCodec {

    private JobConfigurationCodec() {}

    public static byte[] encode(JobConfiguration configuration) {
        StringBuilder text = new StringBuilder();
        line(text, "cron", configuration.cron());
        line(text, "timeZone", configuration.timeZone().getId());
        line(text, "shardingTotalCount", configuration.shardingTotalCount());
        line(text, "shardingItemParameters", configuration.itemParameters());
        line(text, "jobParameter", configuration.jobParameter());
        line(text, "failover", configuration.failover());
        line(text, "misfire", configuration.misfire());
        line(text, "misfirePolicy", configuration.misfirePolicy());
        line(text, "monitorExecution", configuration.monitorExecution());
        line(text, "strategy", configuration.strategy());
        line(text, "description", configuration.description());
        line(text, "disabled", configuration.disabled());
        line(text, "retries", configuration.retries());
        line(text, "retryBackoff", configuration.retryBackoff());
        line(text, "timeout", configuration.timeout());
        line(text, "dynamicSharding", configuration.dynamicSharding());
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a stored configuration.
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
        JobConfiguration.Builder builder = JobConfiguration.builder(jobName).cron(properties.getProperty("cron"));
        String timeZone = properties.getProperty("timeZone");
        if (timeZone != null) {
            builder.timeZone(timeZone);
        }
        return builder.shardingTotalCount(integer(jobName, properties, "shardingTotalCount", 1))
                .shardingItemParameters(properties.getProperty("shardingItemParameters", ""))
                .jobParameter(properties.getProperty("jobParameter", ""))
                .failover(bool(jobName, properties, "failover", false))
                .misfire(bool(jobName, properties, "misfire", true))
                .misfirePolicy(misfirePolicy(jobName, properties.getProperty("misfirePolicy")))
                .monitorExecution(bool(jobName, properties, "monitorExecution", true))
                .strategy(properties.getProperty("strategy", "average"))
                .description(properties.getProperty("description", ""))
                .disabled(bool(jobName, properties, "disabled", false))
                .retries(integer(jobName, properties, "retries", 0))
                .retryBackoff(duration(jobName, properties, "retryBackoff"))
                .timeout(duration(jobName, properties, "timeout"))
                .dynamicSharding(bool(jobName, properties, "dynamicSharding", false))
                .build();
    }

    private static MisfirePolicy misfirePolicy(String jobName, String text) {
        if (text == null || text.isBlank()) {
            return MisfirePolicy.ONCE;
        }
        try {
            return MisfirePolicy.valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            throw new JobConfigurationException(
                    jobName, "misfirePolicy", "'" + text + "' is not one of once, all, skip");
        }
    }

    private static int integer(String jobName, Properties properties, String key, int fallback) {
        String value = properties.getProperty(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException ex) {
            throw new JobConfigurationException(jobName, key, "'" + value + "' is not a whole number");
        }
    }

    /** ISO-8601 as {@link java.time.Duration#toString()} writes it ({@code PT1.5S}); absent means zero. */
    private static java.time.Duration duration(String jobName, Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            return java.time.Duration.ZERO;
        }
        try {
            return java.time.Duration.parse(value.trim());
        } catch (java.time.format.DateTimeParseException ex) {
            throw new JobConfigurationException(
                    jobName, key, "'" + value + "' is not an ISO-8601 duration such as PT5S");
        }
    }

    private static boolean bool(String jobName, Properties properties, String key, boolean fallback) {
        String value = properties.getProperty(key);
        if (value == null) {
            return fallback;
        }
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new JobConfigurationException(jobName, key, "'" + value + "' is neither true nor false");
        };
    }

    private static void line(StringBuilder text, String key, Object value) {
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
