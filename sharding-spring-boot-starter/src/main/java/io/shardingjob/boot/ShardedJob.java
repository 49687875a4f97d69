package io.shardingjob.boot;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobSetting.Defaults;
import io.shardingjob.core.config.MisfirePolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method of a Spring bean as a sharded job: on every fire of its cron, the method runs once for each item this
 * instance owns, in parallel on a bounded executor. A job without a cron is on demand: it fires only when triggered.
 *
 * <p>The method takes a single {@link io.shardingjob.core.execution.ShardingContext} parameter, or none (for a job with
 * one item that should simply run on one instance at a time), and returns {@code void}; any other signature fails
 * start-up naming the method. Private methods of proxied beans are refused as well, because the proxy could not
 * delegate to them. An exception thrown by the method marks the item failed; it never stops the schedule.
 *
 * <p>Every attribute except {@link #name()} can also be set, and overridden, under {@code sharding.jobs.<name>.*},
 * e.g. {@code sharding.jobs.orderSync.cron}. String attributes may use {@code ${...}} placeholders. The attributes
 * mean what the properties of {@link io.shardingjob.core.config.JobConfiguration} of the same name mean; each one's
 * default and description are defined once, in {@link io.shardingjob.core.config.JobSetting}. The attributes that are
 * strings only because an annotation cannot hold their type (the time zone and the durations) mean the core's default
 * when empty.
 *
 * <p>The method is called by reflection; being {@link Reflective}, as {@code @EventListener} is, it is registered for
 * that by Spring's ahead-of-time processing of the bean's class, so jobs run in a native image too.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ShardedJob {

    /** The job name, unique within the application and shared by every instance: letters, digits, '.', '_', '-'. */
    String name();

    /**
     * Six fields, seconds first, as Spring's {@code CronExpression} reads it; or {@code "-"} (Spring's
     * {@code Scheduled.CRON_DISABLED}), the default, for a job on demand: it fires only when triggered (an operator's
     * trigger, {@code ShardingOperations.trigger}). Empty means on demand too.
     */
    String cron() default Defaults.CRON;

    /** The zone the cron is evaluated in, such as {@code Asia/Shanghai}; empty means the system zone. */
    String timeZone() default "";

    /** The number of items each fire is split into. */
    int shardingTotalCount() default Defaults.SHARDING_TOTAL_COUNT;

    /** The parameter of each item, written {@code 0=Beijing,1=Shanghai}; none with {@link #dynamicSharding()}. */
    String shardingItemParameters() default Defaults.SHARDING_ITEM_PARAMETERS;

    /** A parameter handed to every item. */
    String jobParameter() default Defaults.JOB_PARAMETER;

    /** Whether the items of a crashed instance run elsewhere at once. */
    boolean failover() default Defaults.FAILOVER;

    /** Whether fires an item missed are made up as {@link #misfirePolicy()} says; false means {@code SKIP}. */
    boolean misfire() default Defaults.MISFIRE;

    /**
     * What happens to the fires of an item that did not run when due, while {@link #misfire()} is on: {@code ONCE}
     * (missed fires in a row run once, late), {@code ALL} (each runs once, late, with its own fire time) or {@code SKIP}.
     */
    // Defaults.MISFIRE_POLICY, which an annotation cannot name (an enum default must be a constant of the enum): a test
    // checks that the two agree.
    MisfirePolicy misfirePolicy() default MisfirePolicy.ONCE;

    /** Whether items are marked running; kept for compatibility, as the fire ledger records every run. */
    boolean monitorExecution() default Defaults.MONITOR_EXECUTION;

    /** The name of the sharding strategy: a built-in one or the name of a {@code ShardingStrategy} bean. */
    String strategy() default Defaults.STRATEGY;

    /** Free text for operators. */
    String description() default Defaults.DESCRIPTION;

    /** Whether the job starts paused: it keeps its assignment but runs nothing. */
    boolean disabled() default Defaults.DISABLED;

    /** Whether this configuration replaces the one stored in ZooKeeper at start-up. */
    boolean overwrite() default Defaults.OVERWRITE;

    /** How many times a failed item runs again, with the same sharding context it was first fired with. */
    int retries() default Defaults.RETRIES;

    /** The pause before each retry, such as {@code 5s} or {@code PT5S}; empty means the default, none. */
    String retryBackoff() default "";

    /**
     * How long one run of one item may take before it is interrupted and recorded as timed out, such as {@code 30s};
     * empty means the default, no limit.
     */
    String timeout() default "";

    /**
     * Whether the number of items follows the cluster: each live, enabled instance runs exactly one item and the total
     * is their number (XXL-JOB's sharding broadcast); {@link #shardingTotalCount()} is then not used for sharding, and
     * {@link #shardingItemParameters()} must be empty.
     */
    boolean dynamicSharding() default Defaults.DYNAMIC_SHARDING;

    /**
     * The jobs this job follows, by name: it fires once for every fire of theirs that completed as {@link #on()} says,
     * with that fire's time as its own; with several, once all of them completed the same fire time. Jobs of other
     * services of the namespace may be named. Each entry may be a {@code ${...}} placeholder and may list several
     * names, comma-separated. Empty, the default, for none.
     */
    String[] after() default {};

    /**
     * Which fires of the jobs in {@link #after()} this job follows: {@code SUCCESS} (every item succeeded) or
     * {@code COMPLETION} (every item ended, succeeded or failed).
     */
    // Defaults.ON, which an annotation cannot name (an enum default must be a constant of the enum): a test checks that
    // the two agree.
    FollowOn on() default FollowOn.SUCCESS;

    /**
     * Whether item i runs as soon as item i of the upstream fire succeeded, without waiting for the other items: needs
     * {@link #after()}, the same {@link #shardingTotalCount()} as every job it follows, and no dynamic sharding.
     */
    boolean itemWise() default Defaults.ITEM_WISE;
}
