package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.core.JobDefinitions;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The {@link ShardedJobRegistry} of the application: keeps the handlers registered here, and runs here every job
 * defined at run time whose handler it has. Whether a job runs here is decided again, from what is wanted (an active
 * definition and its handler) and what runs, each time either changes, on one thread of its own: starting a job waits
 * for ZooKeeper and stopping one waits for its running items, which neither Curator's thread nor the coordination pool
 * may do.
 */
public final class RuntimeJobs implements ShardedJobRegistry, JobDefinitions.Listener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RuntimeJobs.class);

    private final RunningJobs jobs;

    private final Duration removalWait;

    private final Map<String, ItemExecutor> handlers = new ConcurrentHashMap<>();

    private final ThreadPoolTaskExecutor decisions;

    /** Where removals wait for the instances to stop their job: never the thread that stops it here. */
    private final ThreadPoolTaskExecutor removals;

    private volatile @Nullable JobDefinitions definitions;

    /** The jobs whose decision is queued and not taken yet. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();

    /**
     * @param removalWait how long a removal waits for the instances to stop the job before it deletes the job's state
     */
    public RuntimeJobs(RunningJobs jobs, Duration removalWait) {
        this.jobs = jobs;
        this.removalWait = removalWait;
        this.decisions = singleThread("sharding-definitions-");
        this.removals = singleThread("sharding-removals-");
    }

    private static ThreadPoolTaskExecutor singleThread(String prefix) {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(1);
        executor.setMaxPoolSize(1);
        executor.setThreadNamePrefix(prefix);
        executor.initialize();
        return executor;
    }

    /** Follows the definitions stored in ZooKeeper from now on, starting the jobs defined already. */
    public void connect(RegistryCenter registry) {
        JobDefinitions following = new JobDefinitions(registry.client(), this, jobs.fireSchedule(), jobs.clock());
        definitions = following;
        following.start();
    }

    @Override
    public void registerHandler(String handler, ItemExecutor code) {
        if (handler == null || handler.isBlank()) {
            throw new IllegalArgumentException("A handler needs a name");
        }
        if (handlers.putIfAbsent(handler, code) != null) {
            throw new IllegalArgumentException("A handler named '" + handler + "' is registered here already");
        }
        JobDefinitions following = definitions;
        if (following != null) {
            following.active().stream()
                    .filter(definition -> definition.handler().equals(handler))
                    .forEach(definition -> decide(definition.jobName()));
        }
    }

    @Override
    public Set<String> handlers() {
        return Set.copyOf(handlers.keySet());
    }

    @Override
    public void define(JobConfiguration configuration, String handler) {
        call(configuration.name(), "define", following -> {
            following.define(configuration, handler);
            return null;
        });
    }

    @Override
    public List<String> definedJobs() {
        JobDefinitions following = definitions;
        return following == null
                ? List.of()
                : following.active().stream()
                        .map(JobDefinitions.Definition::jobName)
                        .toList();
    }

    @Override
    public JobConfiguration updateCron(String job, String cron) {
        return update(job, current -> current.toBuilder().cron(cron).build());
    }

    @Override
    public JobConfiguration updateItems(String job, int shardingTotalCount, String itemParameters) {
        return update(
                job,
                current -> current.toBuilder()
                        .shardingTotalCount(shardingTotalCount)
                        .shardingItemParameters(itemParameters)
                        .build());
    }

    @Override
    public CompletableFuture<Void> remove(String job) {
        return call(job, "remove", following -> following.remove(job, removalWait, removals));
    }

    @Override
    public void defined(JobDefinitions.Definition definition) {
        decide(definition.jobName());
    }

    @Override
    public void removed(String jobName) {
        decide(jobName);
    }

    /**
     * Stops following the definitions; the jobs themselves are stopped with the others. It waits for a decision being
     * taken, so that none starts a job after the lifecycle stopped them all.
     */
    public synchronized void disconnect() {
        JobDefinitions following = definitions;
        definitions = null;
        if (following != null) {
            following.close();
        }
    }

    /** With the context: no decision is taken any more. */
    @Override
    public void close() {
        disconnect();
        decisions.shutdown();
        removals.shutdown();
    }

    private JobConfiguration update(String job, UnaryOperator<JobConfiguration> change) {
        return call(job, "update", following -> following.update(job, change));
    }

    /**
     * Decides again for every job defined here or running here: a start that failed (ZooKeeper unreachable at that
     * moment) is tried again at the next look, rather than at the next change of the job's definition.
     */
    public void decideAgain() {
        JobDefinitions following = definitions;
        if (following != null) {
            following.active().forEach(definition -> decide(definition.jobName()));
            jobs.definedNames().forEach(this::decide);
        }
    }

    /** Queues a decision for the job, unless one is queued already: decisions never pile up behind a slow start. */
    private void decide(String jobName) {
        if (!pending.add(jobName)) {
            return;
        }
        try {
            decisions.execute(() -> {
                pending.remove(jobName);
                runIfWanted(jobName);
            });
        } catch (RuntimeException shuttingDown) {
            pending.remove(jobName);
            log.debug("Job {}: not decided, shutting down", jobName);
        }
    }

    /** Starts or stops the job here, as its definition and this instance's handlers say; never after a disconnect. */
    private synchronized void runIfWanted(String jobName) {
        JobDefinitions following = definitions;
        if (following == null) {
            return;
        }
        Optional<JobDefinitions.Definition> definition = following.find(jobName).filter(found -> !found.removing());
        ItemExecutor code =
                definition.map(found -> handlers.get(found.handler())).orElse(null);
        boolean runs = jobs.runsDefined(jobName);
        try {
            if (code != null && !runs) {
                jobs.startDefined(jobName, definition.get().handler(), code, following.storedConfiguration(jobName));
            } else if (code == null && runs) {
                jobs.stopDefined(jobName);
            } else if (code == null && definition.isPresent()) {
                log.info(
                        "Job {}: defined with handler '{}', which this instance does not have; it runs elsewhere",
                        jobName,
                        definition.get().handler());
            }
        } catch (Exception ex) {
            log.error("Job {}: could not {} it here", jobName, runs ? "stop" : "start", ex);
        }
    }

    private <T> T call(String job, String what, DefinitionsCall<T> call) {
        JobDefinitions following = definitions;
        if (following == null) {
            throw new IllegalStateException("Sharded jobs are not running; cannot " + what + " job '" + job + "'");
        }
        try {
            return call.apply(following);
        } catch (IllegalArgumentException | IllegalStateException | NoSuchElementException ex) {
            // A configuration that cannot work (JobConfigurationException is one), no such job, or one being removed.
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException("Job '" + job + "': could not " + what + " it in ZooKeeper", ex);
        }
    }

    @FunctionalInterface
    private interface DefinitionsCall<T> {

        T apply(JobDefinitions definitions) throws Exception;
    }
}
