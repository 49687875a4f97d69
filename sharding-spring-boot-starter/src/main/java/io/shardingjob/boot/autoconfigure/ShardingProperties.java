package io.shardingjob.boot.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of sharded jobs: the registry, the threads, and per-job overrides of {@code @ShardedJob}. Unknown keys
 * fail start-up, so that a misspelt {@code sharding.jobs.orderSync.crn} is not silently ignored.
 */
@ConfigurationProperties(prefix = "sharding", ignoreUnknownFields = false)
public class ShardingProperties {

    /** Whether to run sharded jobs at all. */
    private boolean enabled = true;

    /** This instance's id in the registry; defaults to host@-@pid, so containers that reuse both should set it. */
    private @Nullable String instanceId;

    @NestedConfigurationProperty
    private final ZooKeeperProperties zookeeper = new ZooKeeperProperties();

    private final Scheduler scheduler = new Scheduler();

    private final Execution execution = new Execution();

    private final Coordination coordination = new Coordination();

    private final Shutdown shutdown = new Shutdown();

    @NestedConfigurationProperty
    private final ConsoleProperties console = new ConsoleProperties();

    private final Alerts alerts = new Alerts();

    /** Per-job settings by job name; each overrides the attribute of the same name on the job's @ShardedJob. */
    private Map<String, ShardedJobProperties> jobs = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public ZooKeeperProperties getZookeeper() {
        return zookeeper;
    }

    public Scheduler getScheduler() {
        return scheduler;
    }

    public Execution getExecution() {
        return execution;
    }

    public Coordination getCoordination() {
        return coordination;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public ConsoleProperties getConsole() {
        return console;
    }

    public Alerts getAlerts() {
        return alerts;
    }

    public Map<String, ShardedJobProperties> getJobs() {
        return jobs;
    }

    public void setJobs(Map<String, ShardedJobProperties> jobs) {
        this.jobs = jobs;
    }

    /**
     * The key under {@code sharding.jobs} that configures a job. Keys are matched leniently (case and dashes ignored)
     * because environment variables cannot keep a job name's case.
     */
    Optional<String> jobKey(String jobName) {
        if (jobs.containsKey(jobName)) {
            return Optional.of(jobName);
        }
        return jobs.keySet().stream()
                .filter(key -> canonical(key).equals(canonical(jobName)))
                .findFirst();
    }

    static String canonical(String name) {
        return name.replace("-", "").toLowerCase(Locale.ROOT);
    }

    /** The one scheduler shared by every job. */
    public static class Scheduler {

        /** Threads that fire cron triggers, for all jobs together; coordination work has threads of its own. */
        private int poolSize = 2;

        public int getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(int poolSize) {
            this.poolSize = poolSize;
        }
    }

    /** The threads that run fires and items, shared by every job. */
    public static class Execution {

        /** Items that may run at the same time, for all jobs together. */
        private int poolSize = 16;

        /** Fires planned (their items claimed and handed on) at the same time, for all jobs together; more wait in line. */
        private int maxConcurrentFires = 8;

        /** Item executions kept in memory per job for the sharding endpoint. */
        private int historySize = 200;

        /** The execution log in a relational database. */
        private final JdbcLog jdbcLog = new JdbcLog();

        public JdbcLog getJdbcLog() {
            return jdbcLog;
        }

        public int getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(int poolSize) {
            this.poolSize = poolSize;
        }

        public int getMaxConcurrentFires() {
            return maxConcurrentFires;
        }

        public void setMaxConcurrentFires(int maxConcurrentFires) {
            this.maxConcurrentFires = maxConcurrentFires;
        }

        public int getHistorySize() {
            return historySize;
        }

        public void setHistorySize(int historySize) {
            this.historySize = historySize;
        }
    }

    /** The execution log written to the application's {@code DataSource}. */
    public static class JdbcLog {

        /** Whether to write every item execution to the sharding_job_execution table of the DataSource. */
        private boolean enabled;

        /** Whether to create the table and its index when missing; turn off when Flyway or Liquibase creates them. */
        private boolean initializeSchema = true;

        /** Executions that may wait to be written; beyond it new ones are dropped and counted, never waited for. */
        private int queueCapacity = 10_000;

        /** Executions written in one batch. */
        private int batchSize = 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public int getQueueCapacity() {
            return queueCapacity;
        }

        public void setQueueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** Timings of the coordination with the other instances. */
    public static class Coordination {

        /**
         * How long a job's start waits for ZooKeeper, or for a dead process's session under its instance id to expire.
         */
        private Duration startTimeout = Duration.ofSeconds(15);

        /** How often the leader checks that every item has a live owner, and each instance whether a cron changed. */
        private Duration reconcileInterval = Duration.ofSeconds(10);

        /** How long a fire waits for a pending reshard before running the assignment it has. */
        private Duration shardingWaitTimeout = Duration.ofSeconds(10);

        /** Threads that do coordination work (audits, ledger upkeep, reshards, claim writes) for all jobs together. */
        private int poolSize = 2;

        public int getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(int poolSize) {
            this.poolSize = poolSize;
        }

        public Duration getStartTimeout() {
            return startTimeout;
        }

        public void setStartTimeout(Duration startTimeout) {
            this.startTimeout = startTimeout;
        }

        public Duration getReconcileInterval() {
            return reconcileInterval;
        }

        public void setReconcileInterval(Duration reconcileInterval) {
            this.reconcileInterval = reconcileInterval;
        }

        public Duration getShardingWaitTimeout() {
            return shardingWaitTimeout;
        }

        public void setShardingWaitTimeout(Duration shardingWaitTimeout) {
            this.shardingWaitTimeout = shardingWaitTimeout;
        }
    }

    /** How the application leaves the registry when it stops. */
    public static class Shutdown {

        /**
         * How long shutdown lets items run before interrupting them; the job stays registered until they returned.
         */
        private Duration gracePeriod = Duration.ofSeconds(20);

        public Duration getGracePeriod() {
            return gracePeriod;
        }

        public void setGracePeriod(Duration gracePeriod) {
            this.gracePeriod = gracePeriod;
        }
    }

    /**
     * Alerts of failed items and fires, missed fires and fires that overran into the next, to every
     * {@code ShardedJobAlertListener} bean and, when enabled, to a webhook. Detecting failed fires tracks every fire's
     * completion across the cluster, which costs two ZooKeeper reads per fire and instance (and a write per item).
     */
    public static class Alerts {

        /** Whether to raise alerts; failed-fire detection costs two ZooKeeper reads per fire and instance. */
        private boolean enabled;

        /** Alerts kept in memory on this instance for operators, newest first. */
        private int historySize = 100;

        /** The webhook that receives every alert as JSON. */
        private final Webhook webhook = new Webhook();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getHistorySize() {
            return historySize;
        }

        public void setHistorySize(int historySize) {
            this.historySize = historySize;
        }

        public Webhook getWebhook() {
            return webhook;
        }
    }

    /** An HTTP endpoint that receives alerts as JSON, at most one request per job within the throttle. */
    public static class Webhook {

        /** Whether to POST every alert as JSON to the url; needs spring-web on the class path. */
        private boolean enabled;

        /** The address the alerts are posted to; required when the webhook is enabled. */
        private @Nullable URI url;

        /** The shortest time between two requests for one job; alerts in between are counted and reported with the next. */
        private Duration throttle = Duration.ofMinutes(5);

        /** How long connecting to the receiver, and then its answer, may take. */
        private Duration timeout = Duration.ofSeconds(5);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable URI getUrl() {
            return url;
        }

        public void setUrl(@Nullable URI url) {
            this.url = url;
        }

        public Duration getThrottle() {
            return throttle;
        }

        public void setThrottle(Duration throttle) {
            this.throttle = throttle;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }
}
