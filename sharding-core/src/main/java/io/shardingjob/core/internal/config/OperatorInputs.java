package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.operation.InvalidOperationException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one place where an operator's inputs are checked, before anything is written to ZooKeeper: every operation of
 * {@code JobCoordinator} and {@code JobDefinitions} (and so of the starter's operations, endpoint and console) calls it
 * first, and a refused input is an {@link InvalidOperationException} naming the job, the input and the limit. It reads
 * nothing from ZooKeeper: the caller hands in what a check needs, and whether the job exists is the operations' to say
 * ({@link java.util.NoSuchElementException}, the endpoint's {@code 404}).
 *
 * <p><b>Why sizes are bounded.</b> ZooKeeper refuses a request or an answer larger than {@code jute.maxbuffer}
 * (1,048,575 bytes by default) by dropping the client's connection, which suspends every job of the application:
 *
 * <ul>
 *   <li>a trigger's job parameter is stored in its fire's ledger node, escaped as {@link JobConfigurationCodec} escapes
 *       (at most two bytes per byte), and the ledger's audits read eight fire nodes with their lists of claims in one
 *       multi. With the most items a job may have (whose names list in about 79 kB), eight fires of
 *       {@link JobConfiguration#MAX_JOB_PARAMETER_BYTES} take at most 8 × (32 KiB + 79 kB) ≈ 0.9 MB: under the limit,
 *       where twice that parameter would not be;
 *   <li>a job's shared configuration, which every instance's cache reads whenever it changes, takes at most
 *       {@link #MAX_CONFIGURATION_BYTES} encoded, half a packet, the headroom the ledger's own writes keep;
 *   <li>names (instance ids, handlers, jobs defined at run time) become node names and lines of the assignment.
 * </ul>
 *
 * Sizes are counted in UTF-8 bytes, as ZooKeeper stores them, not in characters.
 */
public final class OperatorInputs {

    /** The largest {@code shardingItemParameters} an operator may store: 10,000 items with some 25 bytes each. */
    public static final int MAX_ITEM_PARAMETERS_BYTES = 256 * 1024;

    /** The largest encoded job configuration stored, in bytes: half of ZooKeeper's default {@code jute.maxbuffer}. */
    public static final int MAX_CONFIGURATION_BYTES = 512 * 1024;

    /**
     * The longest instance id, handler name or name of a job defined at run time: a DNS name or a Kubernetes pod name
     * (at most 253 characters) fits, and 1,000 instances of it listed in an assignment stay far under a packet.
     */
    public static final int MAX_NAME_LENGTH = 255;

    private OperatorInputs() {}

    /** An item of the job, within the count in force (with dynamic sharding, the assignment's). */
    public static int item(String jobName, int item, int shardingTotalCount) {
        if (item < 0 || item >= shardingTotalCount) {
            throw new InvalidOperationException(
                    jobName,
                    "item",
                    "item " + item + " is outside 0.." + (shardingTotalCount - 1) + " (the job has "
                            + shardingTotalCount + " items)");
        }
        return item;
    }

    /**
     * An instance id to disable or enable: well-formed ({@link InstanceId#validate}) and at most
     * {@link #MAX_NAME_LENGTH} characters. It need not be registered now: an operator may disable an instance before
     * it joins (a deployment's next pod), and must be able to enable one that left while disabled, to clear its mark.
     */
    public static String instanceId(String jobName, @Nullable String instanceId) {
        if (instanceId == null || instanceId.isBlank()) {
            throw new InvalidOperationException(jobName, "instanceId", "name the instance");
        }
        checkLength(jobName, "instanceId", instanceId);
        try {
            return InstanceId.validate(instanceId);
        } catch (IllegalArgumentException ex) {
            throw new InvalidOperationException(
                    jobName,
                    "instanceId",
                    "'" + abbreviated(instanceId)
                            + "' is not an instance id: use letters, digits and the characters . _ : @ -");
        }
    }

    /** A trigger's job parameter, null for the configured one. */
    public static @Nullable String jobParameter(String jobName, @Nullable String jobParameter) {
        if (jobParameter != null) {
            checkBytes(jobName, "jobParameter", jobParameter, JobConfiguration.MAX_JOB_PARAMETER_BYTES);
        }
        return jobParameter;
    }

    public static int shardingTotalCount(String jobName, int shardingTotalCount) {
        if (shardingTotalCount < 1 || shardingTotalCount > JobConfiguration.MAX_SHARDING_TOTAL_COUNT) {
            throw new InvalidOperationException(
                    jobName,
                    "shardingTotalCount",
                    shardingTotalCount + " is outside 1.." + JobConfiguration.MAX_SHARDING_TOTAL_COUNT);
        }
        return shardingTotalCount;
    }

    /**
     * A job defined at run time: its name and handler, then its configuration as {@link #configurationChange} checks a
     * new one; its stored form.
     */
    public static byte[] definition(JobConfiguration configuration, @Nullable String handler, FireSchedule schedule) {
        String jobName = configuration.name();
        checkLength(jobName, "name", jobName);
        if (handler == null || handler.isBlank()) {
            throw new InvalidOperationException(jobName, "handler", "a job defined at run time needs a handler name");
        }
        checkLength(jobName, "handler", handler);
        if (handler.indexOf('\n') >= 0 || handler.indexOf('\r') >= 0) {
            throw new InvalidOperationException(jobName, "handler", "a handler name is one line");
        }
        return configurationChange(null, configuration, schedule);
    }

    /**
     * A change of a job's stored configuration (or a new one): what changed is checked (a cron the schedule can read,
     * the job parameter and item parameters within their bounds), then the whole, encoded, against
     * {@link #MAX_CONFIGURATION_BYTES}. What did not change is not checked again: a configuration stored before these
     * bounds existed can still be disabled or resharded.
     *
     * @param current the configuration stored now, null for a new job
     * @param schedule reads crons as the program's trigger does ({@link FireSchedule#check})
     */
    public static byte[] configurationChange(
            @Nullable JobConfiguration current, JobConfiguration next, FireSchedule schedule) {
        String jobName = next.name();
        if (current == null
                || !current.cron().equals(next.cron())
                || !current.timeZone().equals(next.timeZone())) {
            cron(next, schedule);
        }
        if (current == null || !current.jobParameter().equals(next.jobParameter())) {
            checkBytes(jobName, "jobParameter", next.jobParameter(), JobConfiguration.MAX_JOB_PARAMETER_BYTES);
        }
        if (current == null || !current.itemParameters().equals(next.itemParameters())) {
            checkBytes(jobName, "shardingItemParameters", next.itemParameters().toString(), MAX_ITEM_PARAMETERS_BYTES);
        }
        return encoded(next);
    }

    /**
     * The configuration's stored form, at most {@link #MAX_CONFIGURATION_BYTES}: the check of every write of a shared
     * configuration, the one at start-up included.
     */
    public static byte[] encoded(JobConfiguration configuration) {
        byte[] encoded = JobConfigurationCodec.encode(configuration);
        if (encoded.length > MAX_CONFIGURATION_BYTES) {
            throw new InvalidOperationException(
                    configuration.name(),
                    "configuration",
                    "stored it would take " + encoded.length + " bytes, more than the " + MAX_CONFIGURATION_BYTES
                            + " one ZooKeeper node of it may hold; shorten shardingItemParameters, jobParameter or"
                            + " description");
        }
        return encoded;
    }

    /**
     * The configuration's cron, as the schedule that fires it reads it; {@link JobConfiguration#ON_DEMAND} is no cron
     * and not handed to the schedule.
     */
    public static String cron(JobConfiguration configuration, FireSchedule schedule) {
        Objects.requireNonNull(schedule, "schedule");
        if (configuration.isOnDemand()) {
            return configuration.cron();
        }
        try {
            schedule.check(configuration);
        } catch (IllegalArgumentException ex) {
            throw new InvalidOperationException(
                    configuration.name(), "cron", "'" + abbreviated(configuration.cron()) + "': " + ex.getMessage());
        }
        return configuration.cron();
    }

    private static void checkBytes(String jobName, String input, String value, int limit) {
        // Cheap first: a char takes at most three UTF-8 bytes (a surrogate pair, two chars, takes four).
        if ((long) value.length() * 3 <= limit) {
            return;
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > limit) {
            throw new InvalidOperationException(
                    jobName,
                    input,
                    "it takes " + bytes + " bytes in UTF-8, more than the " + limit + " allowed (" + (limit / 1024)
                            + " KiB)");
        }
    }

    /**
     * The text as a message quotes it: whole up to 64 characters, else its start and how long it is, so that a refused
     * input of megabytes does not make a message (a log line, an HTTP answer) of megabytes.
     */
    private static String abbreviated(String text) {
        return text.length() <= 64 ? text : text.substring(0, 48) + "... (" + text.length() + " characters)";
    }

    private static void checkLength(String jobName, String input, String value) {
        if (value.length() > MAX_NAME_LENGTH) {
            throw new InvalidOperationException(
                    jobName,
                    input,
                    "it has " + value.length() + " characters, more than the " + MAX_NAME_LENGTH + " allowed");
        }
    }
}
