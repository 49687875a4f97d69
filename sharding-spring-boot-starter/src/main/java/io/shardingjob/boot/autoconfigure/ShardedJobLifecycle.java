package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.boot.jobs.RuntimeJobs;
import io.shardingjob.boot.jobs.ScheduledShardedJob;
import io.shardingjob.boot.jobs.ShardedJobAnnotationBeanPostProcessor;
import io.shardingjob.boot.jobs.ShardedJobConfigurationException;
import io.shardingjob.boot.jobs.ShardedJobExecutors;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.instance.InstanceId;
import io.shardingjob.core.registry.RegistryCenter;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.Environment;

/**
 * Starts the jobs once the context is ready and stops them gracefully: on start it validates every job before touching
 * ZooKeeper, connects, starts each job's coordinator and schedules it; on stop it stops firing and closes the
 * coordinators, all at once, each letting its running items finish within the grace period, then interrupting them and
 * waiting until they returned (each is handed to failover as it returns), and leaving the registry, so that the other
 * instances reshard at once instead of waiting for this session to time out. The stop is synchronous, so no
 * lifecycle timeout cuts it short: the item pools and the ZooKeeper client, closed after it, never go under a
 * running item.
 *
 * <p>It stops in a phase before the web server's graceful shutdown, so the endpoint still answers while jobs drain.
 */
final class ShardedJobLifecycle implements SmartLifecycle, ShardedJobAnnotationBeanPostProcessor.JobRegistrar {

    private static final Logger log = LoggerFactory.getLogger(ShardedJobLifecycle.class);

    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private final ShardedJobAnnotationBeanPostProcessor discovery;

    private final JobConfigurationResolver resolver;

    private final ShardingProperties properties;

    private final Supplier<RegistryCenter> registry;

    private final Supplier<List<ShardedJobListener>> listeners;

    private final RunningJobs jobs;

    private final ShardedJobExecutors executors;

    private final RuntimeJobs runtimeJobs;

    private final JobGraphCheck graph;

    private final Environment environment;

    private volatile boolean running;

    private @Nullable ScheduledFuture<?> scheduleWatch;

    ShardedJobLifecycle(
            ShardedJobAnnotationBeanPostProcessor discovery,
            JobConfigurationResolver resolver,
            ShardingProperties properties,
            Supplier<RegistryCenter> registry,
            Supplier<List<ShardedJobListener>> listeners,
            RunningJobs jobs,
            ShardedJobExecutors executors,
            RuntimeJobs runtimeJobs,
            Environment environment) {
        this.discovery = discovery;
        this.resolver = resolver;
        this.properties = properties;
        this.registry = registry;
        this.listeners = listeners;
        this.jobs = jobs;
        this.executors = executors;
        this.runtimeJobs = runtimeJobs;
        this.graph = new JobGraphCheck(properties);
        this.environment = environment;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        try {
            Map<ShardedJobMethod, JobConfiguration> configurations = resolver.resolveAll(discovery.attach(this));
            String instanceId = instanceId();
            RegistryCenter connected = registry.get();
            // Once connected, since the graph spans the jobs stored in the namespace; before any job starts.
            graph.check(connected, configurations);
            jobs.connect(connected, instanceId, listeners.get());
            startAll(configurations);
            // After the declared jobs: a definition of the same name as one of them is refused when it is made.
            runtimeJobs.connect(connected);
            scheduleWatch = executors
                    .scheduler()
                    .scheduleWithFixedDelay(
                            () -> {
                                jobs.followScheduleChanges();
                                runtimeJobs.decideAgain();
                            },
                            properties.getCoordination().getReconcileInterval());
            running = true;
            log.info(
                    "Sharded jobs {} running on instance {}",
                    jobs.all().stream().map(job -> job.coordinator().jobName()).toList(),
                    instanceId);
        } catch (RuntimeException ex) {
            discovery.detach();
            runtimeJobs.disconnect();
            jobs.closeAll();
            throw ex;
        }
    }

    @Override
    public void stop() {
        stop(() -> {});
    }

    @Override
    public synchronized void stop(Runnable callback) {
        try {
            if (running) {
                running = false;
                discovery.detach();
                if (scheduleWatch != null) {
                    scheduleWatch.cancel(false);
                }
                log.info(
                        "Stopping sharded jobs: waiting up to {} for running items",
                        properties.getShutdown().getGracePeriod());
                runtimeJobs.disconnect();
                jobs.closeAll();
            }
        } finally {
            callback.run();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * The jobs of a bean created after start-up (a lazy one): checked against the namespace's graph together, once,
     * and started together, like the jobs declared at start-up.
     */
    @Override
    public synchronized void added(List<ShardedJobMethod> added) {
        Map<ShardedJobMethod, JobConfiguration> configurations = new LinkedHashMap<>();
        Map<String, String> declarers = new HashMap<>();
        for (ShardedJobMethod job : added) {
            String existing = jobs.find(job.jobName())
                    .map(ScheduledShardedJob::describe)
                    .orElse(declarers.putIfAbsent(job.jobName(), job.describe()));
            if (existing != null) {
                throw new ShardedJobConfigurationException(
                        job.jobName(),
                        "@ShardedJob(name)",
                        "the name is declared twice, by " + existing + " and by " + job.describe(),
                        "Give one of these methods another @ShardedJob(name).",
                        null);
            }
            configurations.put(job, resolver.resolve(job));
        }
        graph.check(registry.get(), configurations);
        startAll(configurations);
    }

    /** Starts the jobs; one its coordinator refuses (past a limit of ZooKeeper's) is named with its setting. */
    private void startAll(Map<ShardedJobMethod, JobConfiguration> configurations) {
        try {
            jobs.startAll(configurations);
        } catch (JobConfigurationException ex) {
            throw configurations.keySet().stream()
                    .filter(job -> job.jobName().equals(ex.jobName()))
                    .findFirst()
                    .<RuntimeException>map(job -> resolver.refusedAtStart(job, ex))
                    .orElse(ex);
        }
    }

    @Override
    public synchronized void removed(ShardedJobMethod job) {
        jobs.stop(job);
    }

    private String instanceId() {
        String configured = properties.getInstanceId();
        if (configured == null || configured.isBlank()) {
            return DefaultInstanceId.of(environment);
        }
        try {
            return InstanceId.validate(configured.trim());
        } catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    "sharding.instance-id", configured, "use letters, digits and the characters . _ : @ -");
        }
    }
}
