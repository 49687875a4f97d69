package io.shardingjob.core.config;

import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Every setting of a job, defined once: its name, its default and its one-line description. The rest is derived from
 * this type or checked against it: {@link JobConfiguration.Builder}, the stored form of a configuration and the
 * {@code JobCoordinatorBuilder} take their defaults from {@link Defaults}, the stored form its keys from
 * {@link #key()}, the starter's {@code @ShardedJob} attributes default to the same constants, and tests fail when the annotation, the
 * {@code sharding.*} properties or their metadata have a setting this type lacks, or another default or description.
 * What a valid value is stays in {@link JobConfiguration}, which checks it.
 *
 * <p>{@link Scope#CONFIGURATION} settings are the properties of a {@link JobConfiguration}: every one but
 * {@link #OVERWRITE} is stored in ZooKeeper, so that every instance runs the job the same way.
 * {@link Scope#COORDINATOR} settings belong to one instance's {@code JobCoordinatorBuilder} and are never stored.
 */
public enum JobSetting {
    CRON(
            Scope.CONFIGURATION,
            () -> Defaults.CRON,
            "The schedule: six fields, seconds first, as Spring's CronExpression reads it, or \"-\" to fire only when"
                    + " triggered."),

    TIME_ZONE(
            Scope.CONFIGURATION,
            ZoneId::systemDefault,
            "The zone the cron is evaluated in, such as Asia/Shanghai; the system zone by default."),

    SHARDING_TOTAL_COUNT(
            Scope.CONFIGURATION, () -> Defaults.SHARDING_TOTAL_COUNT, "The number of items each fire is split into."),

    SHARDING_ITEM_PARAMETERS(
            Scope.CONFIGURATION,
            () -> Defaults.SHARDING_ITEM_PARAMETERS,
            "The parameter of each item, written 0=Beijing,1=Shanghai; none with dynamic sharding."),

    JOB_PARAMETER(Scope.CONFIGURATION, () -> Defaults.JOB_PARAMETER, "A parameter handed to every item."),

    FAILOVER(
            Scope.CONFIGURATION,
            () -> Defaults.FAILOVER,
            "Whether the items of a crashed instance run elsewhere at once."),

    MISFIRE(
            Scope.CONFIGURATION,
            () -> Defaults.MISFIRE,
            "Whether fires an item missed are made up as the misfire policy says; false means the skip policy."),

    MISFIRE_POLICY(
            Scope.CONFIGURATION,
            () -> Defaults.MISFIRE_POLICY,
            "What happens to the fires an item missed while misfire is on: once, all or skip."),

    MONITOR_EXECUTION(
            Scope.CONFIGURATION,
            () -> Defaults.MONITOR_EXECUTION,
            "Whether items are marked running; kept for compatibility, as the fire ledger records every run."),

    STRATEGY(
            Scope.CONFIGURATION,
            () -> Defaults.STRATEGY,
            "The name of the sharding strategy: average, odevity, rotate, sticky, or a custom strategy's name."),

    DESCRIPTION(Scope.CONFIGURATION, () -> Defaults.DESCRIPTION, "Free text for operators."),

    DISABLED(
            Scope.CONFIGURATION,
            () -> Defaults.DISABLED,
            "Whether the job is paused: it keeps its assignment but runs nothing."),

    OVERWRITE(
            Scope.CONFIGURATION,
            () -> Defaults.OVERWRITE,
            "Whether this configuration replaces the one stored in ZooKeeper at start-up."),

    RETRIES(
            Scope.CONFIGURATION,
            () -> Defaults.RETRIES,
            "How many times a failed item runs again, with the sharding context it was first fired with."),

    RETRY_BACKOFF(Scope.CONFIGURATION, () -> Defaults.RETRY_BACKOFF, "The pause before each retry."),

    TIMEOUT(
            Scope.CONFIGURATION,
            () -> Defaults.TIMEOUT,
            "How long one run of one item may take before it is interrupted and recorded as timed out; 0 for no"
                    + " limit."),

    DYNAMIC_SHARDING(
            Scope.CONFIGURATION,
            () -> Defaults.DYNAMIC_SHARDING,
            "Whether the number of items follows the number of live, enabled instances, one item each; no item"
                    + " parameters."),

    AFTER(
            Scope.CONFIGURATION,
            () -> Defaults.AFTER,
            "The jobs this job follows: it fires once for every fire of theirs that completed, with its fire time."),

    ON(
            Scope.CONFIGURATION,
            () -> Defaults.ON,
            "Which upstream fires this job follows: success (every item succeeded) or completion (every item ended)."),

    ITEM_WISE(
            Scope.CONFIGURATION,
            () -> Defaults.ITEM_WISE,
            "Whether item i runs as soon as item i of the upstream fire succeeded; needs the upstream's item count."),

    START_TIMEOUT(
            Scope.COORDINATOR,
            () -> Defaults.START_TIMEOUT,
            "How long a job's start waits for ZooKeeper, or for a dead process's session under its instance id to expire."),

    RECONCILE_INTERVAL(
            Scope.COORDINATOR,
            () -> Defaults.RECONCILE_INTERVAL,
            "How often the leader checks that every item has a live owner."),

    SHARDING_WAIT_TIMEOUT(
            Scope.COORDINATOR,
            () -> Defaults.SHARDING_WAIT_TIMEOUT,
            "How long a fire waits for a pending reshard before running the assignment it has."),

    SHUTDOWN_GRACE_PERIOD(
            Scope.COORDINATOR,
            () -> Defaults.SHUTDOWN_GRACE_PERIOD,
            "How long shutdown lets items run before interrupting them; the job stays registered until they returned."),

    INTERRUPT_ON_CONNECTION_LOSS(
            Scope.COORDINATOR,
            () -> Defaults.INTERRUPT_ON_CONNECTION_LOSS,
            "Whether running items are interrupted when the connection is lost long enough that the session may"
                    + " expire."),

    CATCH_UP_HORIZON(
            Scope.COORDINATOR,
            () -> Defaults.CATCH_UP_HORIZON,
            "How far back missed fires are made up; older ones are recorded as skipped."),

    LEDGER_RETENTION(
            Scope.COORDINATOR,
            () -> Defaults.LEDGER_RETENTION,
            "How long settled fires stay in the ledger before the leader deletes them.");

    /** Where a setting is given. */
    public enum Scope {
        /** A property of {@link JobConfiguration}, shared by every instance through ZooKeeper. */
        CONFIGURATION,
        /** A setting of one instance's {@code JobCoordinatorBuilder}, never stored. */
        COORDINATOR
    }

    /**
     * The default values, as constants so that annotation attributes can default to them. A default that cannot be a
     * compile-time constant (a {@link Duration}, an enum) is a plain constant, and the starter's test checks that the
     * annotation's default means the same value.
     */
    public static final class Defaults {

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
        public static final Duration RETRY_BACKOFF = Duration.ZERO;
        public static final Duration TIMEOUT = Duration.ZERO;
        public static final boolean DYNAMIC_SHARDING = false;
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

        private Defaults() {}
    }

    private final Scope scope;
    private final String key;
    private final Supplier<Object> defaultValue;
    private final String description;

    JobSetting(Scope scope, Supplier<Object> defaultValue, String description) {
        this.scope = scope;
        this.key = camelCase(name());
        this.defaultValue = defaultValue;
        this.description = description;
    }

    public Scope scope() {
        return scope;
    }

    /**
     * The setting's name, the constant's in camel case ({@code shardingTotalCount}): the name of its
     * {@link JobConfiguration.Builder} or {@code JobCoordinatorBuilder} method, of its key in ZooKeeper and of its
     * {@code @ShardedJob} attribute; the starter's property is its kebab-case form.
     */
    public String key() {
        return key;
    }

    /**
     * The value a job gets when it sets none: an {@link Integer}, {@link Boolean}, {@link String}, {@link Duration},
     * {@link MisfirePolicy} or, for {@link #TIME_ZONE}, the {@link ZoneId} of this JVM; for {@link #CRON},
     * {@link JobConfiguration#ON_DEMAND}.
     */
    public Optional<Object> defaultValue() {
        return Optional.ofNullable(defaultValue.get());
    }

    /** One sentence saying what the setting does, as the IDE shows it for the starter's property. */
    public String description() {
        return description;
    }

    /** Whether the setting is part of the configuration stored in ZooKeeper. */
    public boolean isStored() {
        return scope == Scope.CONFIGURATION && this != OVERWRITE;
    }

    private static String camelCase(String constant) {
        StringBuilder key = new StringBuilder();
        for (String word : constant.toLowerCase(Locale.ROOT).split("_")) {
            key.append(key.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return key.toString();
    }

    /** The settings of one scope, in declaration order. */
    public static List<JobSetting> of(Scope scope) {
        return Arrays.stream(values()).filter(setting -> setting.scope == scope).toList();
    }
}
