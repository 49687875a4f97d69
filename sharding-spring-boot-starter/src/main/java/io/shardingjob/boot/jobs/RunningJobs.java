package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.ShardedJobs;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskHolder;

/**
 * The jobs started on this instance, by name. Changes come from {@link ShardedJobLifecycle}, one at a time; reads (the
 * operations, the endpoint, health) use an immutable snapshot and never wait for a start or a stop in progress.
 *
 * <p>As a {@link ScheduledTaskHolder} it shows the jobs' schedules to Boot's {@code scheduledtasks} endpoint.
 */
public final class RunningJobs implements ScheduledTaskHolder {

    private static final Logger log = LoggerFactory.getLogger(RunningJobs.class);

    private final JobAssembly assembly;

    private volatile Map<String, ScheduledShardedJob> jobs = Map.of();

    private volatile @Nullable RegistryCenter registry;

    private volatile String instanceId = "";

    private volatile List<ShardedJobListener> listeners = List.of();

    /** What each job is handed to before it starts and again once it is known: the readiness it follows, if any. */
    private volatile Consumer<JobCoordinator> arrivals = coordinator -> {};

    /**
     * How long the jobs' coordination waits for what, the same for every job of the application.
     *
     * @param startTimeout how long a job's start waits for its registration and first assignment
     * @param reconcileInterval how often each job audits its state against ZooKeeper
     * @param shardingWaitTimeout how long a fire waits for a reshard in progress
     * @param shutdownGracePeriod how long a stopping job lets its running items finish
     */
    public record Timings(
            Duration startTimeout,
            Duration reconcileInterval,
            Duration shardingWaitTimeout,
            Duration shutdownGracePeriod) {}

    public RunningJobs(
            Timings timings,
            ShardingStrategies strategies,
            ShardedJobExecutors executors,
            JobListeners jobListeners,
            Supplier<List<ItemExecutorDecorator>> decorators) {
        this.assembly = new JobAssembly(timings, strategies, executors, jobListeners, decorators);
    }

    /** What every job started from now on shares: the registry, this instance's id and the listeners. */
    public void connect(RegistryCenter registry, String instanceId, List<ShardedJobListener> listeners) {
        this.registry = registry;
        this.instanceId = instanceId;
        this.listeners = listeners;
    }

    String instanceId() {
        return instanceId;
    }

    @Nullable
    RegistryCenter registry() {
        return registry;
    }

    /**
     * Hands every job to {@code follower} before it starts (a job standing by registers marked, and no assignment ever
     * gives it items) and once it is known, after {@link #all()} lists it (so that a change applied to the jobs listed
     * meanwhile passes none by); a job defined at run time as well.
     */
    void eachJobFollows(Consumer<JobCoordinator> follower) {
        this.arrivals = follower;
    }

    /** The started jobs, in start order. */
    public List<ScheduledShardedJob> all() {
        return List.copyOf(jobs.values());
    }

    public Optional<ScheduledShardedJob> find(String name) {
        return Optional.ofNullable(jobs.get(name));
    }

    /** The schedule of each started job, in start order: what {@code /actuator/scheduledtasks} lists for them. */
    @Override
    public Set<ScheduledTask> getScheduledTasks() {
        Set<ScheduledTask> tasks = new LinkedHashSet<>();
        for (ScheduledShardedJob job : all()) {
            ScheduledTask task = job.scheduledTask();
            if (task != null) {
                tasks.add(task);
            }
        }
        return Collections.unmodifiableSet(tasks);
    }

    /** Starts a job's coordinator, which joins the registry, then schedules the job. */
    public void start(ShardedJobMethod method, JobConfiguration configuration) {
        start(method, method.invoker(), method.describe(), configuration);
    }

    /**
     * Starts the jobs' coordinators many at once ({@link ShardedJobs#startAll()}: thousands of jobs one after another
     * took minutes), then schedules each. If one fails to start, none is scheduled, those started are closed again, and
     * the first failure is thrown.
     */
    public void startAll(Map<ShardedJobMethod, JobConfiguration> configurations) {
        List<ScheduledShardedJob> prepared = new ArrayList<>();
        configurations.forEach((method, configuration) ->
                prepared.add(prepared(method, method.invoker(), method.describe(), configuration)));
        ShardedJobs starting = new ShardedJobs();
        prepared.forEach(job -> starting.add(job.coordinator()));
        starting.startAll();
        prepared.forEach(this::started);
    }

    /** Starts a job defined at run time, whose code is the handler of that name here. */
    void startDefined(String jobName, String handler, ItemExecutor code, JobConfiguration configuration) {
        start(null, code, "handler '" + handler + "' (defined at run time)", configuration);
    }

    /** The jobs defined at run time that run here. */
    List<String> definedNames() {
        return jobs.values().stream()
                .filter(job -> job.method() == null)
                .map(job -> job.coordinator().jobName())
                .toList();
    }

    /** Whether a job defined at run time of that name runs here. */
    boolean runsDefined(String jobName) {
        ScheduledShardedJob job = jobs.get(jobName);
        return job != null && job.method() == null;
    }

    /** Stops and closes a job defined at run time, letting its running items finish within the grace period. */
    void stopDefined(String jobName) {
        ScheduledShardedJob job = jobs.get(jobName);
        if (job != null && job.method() == null) {
            close(job);
        }
    }

    private void start(
            @Nullable ShardedJobMethod method, ItemExecutor code, String describedAs, JobConfiguration configuration) {
        ScheduledShardedJob job = prepared(method, code, describedAs, configuration);
        job.coordinator().start();
        started(job);
    }

    /** The job with its coordinator built, not started yet. */
    private ScheduledShardedJob prepared(
            @Nullable ShardedJobMethod method, ItemExecutor code, String describedAs, JobConfiguration configuration) {
        RegistryCenter connected = registry;
        if (connected == null) {
            throw new IllegalStateException("Sharded jobs are not running; cannot start " + describedAs);
        }
        ScheduledShardedJob running = jobs.get(configuration.name());
        if (running != null) {
            throw new IllegalStateException("Job '" + configuration.name() + "' of " + describedAs
                    + " cannot start: a job of that name runs here, from " + running.describe());
        }
        ScheduledShardedJob job =
                assembly.assemble(method, code, describedAs, configuration, connected, instanceId, this::executed);
        arrivals.accept(job.coordinator());
        return job;
    }

    /** Makes a job whose coordinator started known, and schedules it. */
    private void started(ScheduledShardedJob job) {
        JobCoordinator coordinator = job.coordinator();
        put(coordinator.jobName(), job);
        // The readiness may have changed while it started.
        arrivals.accept(coordinator);
        for (ShardedJobListener listener : listeners) {
            listener.jobStarted(coordinator);
        }
        job.schedule();
        JobConfiguration effective = coordinator.configuration();
        log.info(
                "Job {} scheduled {} ({} items, strategy {}), declared by {}",
                effective.name(),
                effective.isOnDemand()
                        ? "on demand: it fires only when triggered"
                        : "with cron '" + effective.cron() + "' in " + effective.timeZone(),
                effective.shardingTotalCount(),
                effective.strategy(),
                job.describe());
    }

    /** Stops and closes the job, if it is the one the given bean declared. */
    public void stop(ShardedJobMethod method) {
        ScheduledShardedJob job = jobs.get(method.jobName());
        if (job != null && job.declaredBy(method)) {
            close(job);
        }
    }

    private void close(ScheduledShardedJob job) {
        job.cancel();
        job.coordinator().close();
        forget(job.coordinator().jobName());
    }

    /**
     * The map of running jobs is replaced, never changed, so that readers need no lock; writers (the lifecycle, and
     * the thread that starts and stops the jobs defined at run time) take this one.
     */
    private synchronized void put(String name, ScheduledShardedJob job) {
        Map<String, ScheduledShardedJob> more = new LinkedHashMap<>(jobs);
        more.put(name, job);
        jobs = Collections.unmodifiableMap(more);
    }

    private synchronized void forget(String name) {
        Map<String, ScheduledShardedJob> rest = new LinkedHashMap<>(jobs);
        rest.remove(name);
        jobs = Collections.unmodifiableMap(rest);
    }

    /** One periodic check for all jobs, rather than one per job: its cost is a cache read per job. */
    public void followScheduleChanges() {
        for (ScheduledShardedJob job : all()) {
            try {
                job.followScheduleChange();
            } catch (RuntimeException ex) {
                log.warn(
                        "Job {}: could not follow a schedule change",
                        job.coordinator().jobName(),
                        ex);
            }
        }
    }

    /**
     * Stops firing and closes every coordinator, many at once ({@link ShardedJobs#close()}), so that shutdown takes one
     * grace period rather than one per job with items still running.
     */
    public void closeAll() {
        List<ScheduledShardedJob> closing = all();
        closing.forEach(ScheduledShardedJob::cancel);
        ShardedJobs coordinators = new ShardedJobs();
        closing.forEach(job -> coordinators.add(job.coordinator()));
        coordinators.close();
        synchronized (this) {
            jobs = Map.of();
        }
    }

    private void executed(ExecutionRecord execution) {
        for (ShardedJobListener listener : listeners) {
            try {
                listener.executed(execution);
            } catch (RuntimeException ex) {
                log.warn("Job {}: listener {} failed", execution.job(), listener, ex);
            }
        }
    }

    /** The fire times of the jobs' crons, as their triggers read them. */
    CronFireSchedule fireSchedule() {
        return assembly.fireSchedule();
    }

    /** The jobs' time, which their schedules and coordinators read. */
    Clock clock() {
        return assembly.clock();
    }
}
