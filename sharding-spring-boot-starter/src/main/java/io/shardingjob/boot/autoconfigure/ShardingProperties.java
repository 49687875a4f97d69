package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.config.MisfirePolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

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

    private final ZooKeeper zookeeper = new ZooKeeper();

    private final Scheduler scheduler = new Scheduler();

    private final Execution execution = new Execution();

    private final Coordination coordination = new Coordination();

    private final Shutdown shutdown = new Shutdown();

    /** Per-job settings by job name; each overrides the attribute of the same name on the job's @ShardedJob. */
    private Map<String, Job> jobs = new LinkedHashMap<>();

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

    public ZooKeeper getZookeeper() {
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

    public Map<String, Job> getJobs() {
        return jobs;
    }

    public void setJobs(Map<String, Job> jobs) {
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

    /** How to reach ZooKeeper. */
    public static class ZooKeeper {

        /** The ensemble, e.g. zk1:2181,zk2:2181,zk3:2181; defaults to the embedded server's address when it runs. */
        private @Nullable String connectString;

        /** The root node of this application's jobs; defaults to spring.application.name, or "sharding". */
        private @Nullable String namespace;

        /** How long ZooKeeper keeps the session of a silent instance; a dead instance loses its items after this. */
        private Duration sessionTimeout = Duration.ofSeconds(10);

        /** How long start-up waits for the first connection before failing. */
        private Duration connectionTimeout = Duration.ofSeconds(10);

        /** The first pause between retries of a failed ZooKeeper operation, doubled on every retry. */
        private Duration baseSleepTime = Duration.ofSeconds(1);

        /** How many times a failed ZooKeeper operation is retried. */
        private int maxRetries = 3;

        /** The longest pause between retries. */
        private Duration maxSleepTime = Duration.ofSeconds(3);

        /** Optional user:password for digest authentication; nodes are then readable only by that identity. */
        private @Nullable String digest;

        private final Embedded embedded = new Embedded();

        public @Nullable String getConnectString() {
            return connectString;
        }

        public void setConnectString(@Nullable String connectString) {
            this.connectString = connectString;
        }

        public @Nullable String getNamespace() {
            return namespace;
        }

        public void setNamespace(@Nullable String namespace) {
            this.namespace = namespace;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectionTimeout() {
            return connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }

        public Duration getBaseSleepTime() {
            return baseSleepTime;
        }

        public void setBaseSleepTime(Duration baseSleepTime) {
            this.baseSleepTime = baseSleepTime;
        }

        public int getMaxRetries() {
            return maxRetries;
        }

        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }

        public Duration getMaxSleepTime() {
            return maxSleepTime;
        }

        public void setMaxSleepTime(Duration maxSleepTime) {
            this.maxSleepTime = maxSleepTime;
        }

        public @Nullable String getDigest() {
            return digest;
        }

        public void setDigest(@Nullable String digest) {
            this.digest = digest;
        }

        public Embedded getEmbedded() {
            return embedded;
        }
    }

    /** A ZooKeeper server inside the application, for development. */
    public static class Embedded {

        /** Whether to start a ZooKeeper server inside the application. */
        private boolean enabled;

        /** The port the embedded server listens on; 0 picks a free one. */
        private int port = 2181;

        /** Where the embedded server keeps its data; by default a temporary directory deleted at shutdown. */
        private @Nullable String dataDirectory;

        /** The embedded server's tick; sessions may last from 2 to 20 ticks. */
        private Duration tickTime = Duration.ofMillis(500);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public @Nullable String getDataDirectory() {
            return dataDirectory;
        }

        public void setDataDirectory(@Nullable String dataDirectory) {
            this.dataDirectory = dataDirectory;
        }

        public Duration getTickTime() {
            return tickTime;
        }

        public void setTickTime(Duration tickTime) {
            this.tickTime = tickTime;
        }
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

        /** Fires that may wait for their items at the same time, for all jobs together; more wait in line. */
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

        /** How long a job's start waits for ZooKeeper to answer. */
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

        /** How long shutdown lets running items finish before interrupting them and handing them to failover. */
        private Duration gracePeriod = Duration.ofSeconds(20);

        public Duration getGracePeriod() {
            return gracePeriod;
        }

        public void setGracePeriod(Duration gracePeriod) {
            this.gracePeriod = gracePeriod;
        }
    }

    /** Settings of one job; each one left unset keeps the value of the job's @ShardedJob. */
    public static class Job {

        /** Six fields, seconds first, as Spring's CronExpression reads it. */
        private @Nullable String cron;

        /** The zone the cron is evaluated in, such as Asia/Shanghai. */
        private @Nullable String timeZone;

        /** The number of items each fire is split into. */
        private @Nullable Integer shardingTotalCount;

        /** The parameter of each item, written 0=Beijing,1=Shanghai. */
        private @Nullable String shardingItemParameters;

        /** A parameter handed to every item. */
        private @Nullable String jobParameter;

        /** Whether the items of a crashed instance run elsewhere at once. */
        private @Nullable Boolean failover;

        /** Whether a fire that arrives while the previous one still runs is made up afterwards. */
        private @Nullable Boolean misfire;

        /** What happens to missed fires while misfire is on: once (the default), all, or skip. */
        private @Nullable MisfirePolicy misfirePolicy;

        /** Whether items are marked running; kept for compatibility, as the fire ledger records every run. */
        private @Nullable Boolean monitorExecution;

        /** The name of the sharding strategy: average, odevity, rotate, sticky, or a custom strategy's name. */
        private @Nullable String strategy;

        /** Free text for operators. */
        private @Nullable String description;

        /** Whether the job starts paused: it keeps its assignment but runs nothing. */
        private @Nullable Boolean disabled;

        /** Whether this configuration replaces the one stored in ZooKeeper at start-up. */
        private @Nullable Boolean overwrite;

        /** How many times a failed item runs again, with the sharding context it was first fired with. */
        private @Nullable Integer retries;

        /** The pause before each retry. */
        private @Nullable Duration retryBackoff;

        /** How long one run of one item may take before it is interrupted and recorded as timed out; 0 for no limit. */
        private @Nullable Duration timeout;

        /** Whether the number of items follows the number of live, enabled instances, one item each. */
        private @Nullable Boolean dynamicSharding;

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
}
