package io.shardingjob.boot.autoconfigure;

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
 *
 * <p>A group that a feature of its own reads (the registry, the running of fires and items with its log, the console,
 * the alerts) is a class of its own, marked {@link NestedConfigurationProperty} so that the metadata still lists its
 * properties; the small groups that only tune the threads and timings every job shares stay nested here.
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

    @NestedConfigurationProperty
    private final ExecutionProperties execution = new ExecutionProperties();

    private final Coordination coordination = new Coordination();

    private final Shutdown shutdown = new Shutdown();

    private final Availability availability = new Availability();

    @NestedConfigurationProperty
    private final ConsoleProperties console = new ConsoleProperties();

    @NestedConfigurationProperty
    private final AlertsProperties alerts = new AlertsProperties();

    @NestedConfigurationProperty
    private final FencingProperties fencing = new FencingProperties();

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

    public ExecutionProperties getExecution() {
        return execution;
    }

    public Coordination getCoordination() {
        return coordination;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Availability getAvailability() {
        return availability;
    }

    public ConsoleProperties getConsole() {
        return console;
    }

    public AlertsProperties getAlerts() {
        return alerts;
    }

    public FencingProperties getFencing() {
        return fencing;
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

    /** How the jobs follow the application's readiness (Spring Boot's availability states). */
    public static class Availability {

        /**
         * Whether an instance takes items only while the application accepts traffic, handing them over while it
         * refuses it.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
