package io.shardingjob.core;

import io.shardingjob.core.config.JobConfigurationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of one application, by name. Two jobs with one name would share ZooKeeper state and corrupt each other's
 * assignment, so the second is refused before it touches the registry.
 */
public final class ShardedJobs implements AutoCloseable {

    /**
     * Jobs {@link #startAll()} starts at once at most: enough to keep ZooKeeper's log busy committing many jobs' writes
     * together, few enough that the threads waiting for it stay a small constant.
     */
    static final int PARALLEL_STARTS = 128;

    /** Jobs {@link #close()} closes at once at most: each may wait up to its grace period for items still running. */
    static final int PARALLEL_CLOSES = 16;

    private static final Logger log = LoggerFactory.getLogger(ShardedJobs.class);
    private final Map<String, JobCoordinator> jobs = new LinkedHashMap<>();

    /**
     * Adds a job that is not started yet.
     *
     * @throws JobConfigurationException when a job of that name is already there
     */
    public synchronized JobCoordinator add(JobCoordinator job) {
        if (jobs.putIfAbsent(job.jobName(), job) != null) {
            throw new JobConfigurationException(
                    job.jobName(),
                    "name",
                    "another job of this application already has this name; job names must be unique");
        }
        return job;
    }

    public synchronized Optional<JobCoordinator> find(String jobName) {
        return Optional.ofNullable(jobs.get(jobName));
    }

    public synchronized Collection<JobCoordinator> all() {
        return Collections.unmodifiableCollection(new ArrayList<>(jobs.values()));
    }

    /**
     * Starts every job, many at once: each start waits for ZooKeeper a few round trips, most of them for a write that
     * the server commits to its log, and writes of many jobs arriving together are committed together. One after
     * another, five thousand jobs took two minutes. If one fails, the jobs not started yet are not started and those
     * already started are closed again; the first failure is thrown.
     */
    public void startAll() {
        List<JobCoordinator> started = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        inParallel(PARALLEL_STARTS, "sharding-start", job -> {
            if (failure.get() != null) {
                return;
            }
            try {
                job.start();
                started.add(job);
            } catch (RuntimeException ex) {
                failure.compareAndSet(null, ex);
            }
        });
        RuntimeException first = failure.get();
        if (first != null) {
            new ArrayList<>(started).forEach(JobCoordinator::close);
            throw first;
        }
    }

    /**
     * Closes every job, each leaving the registry cleanly, up to {@value #PARALLEL_CLOSES} at once, so that closing takes
     * one grace period rather than one per job with items still running (a great many such jobs take a few). A
     * job that fails to close is logged, and the others are closed all the same.
     */
    @Override
    public void close() {
        inParallel(PARALLEL_CLOSES, "sharding-close", job -> {
            try {
                job.close();
            } catch (RuntimeException ex) {
                log.warn("Job {}: closing failed", job.jobName(), ex);
            }
        });
    }

    /**
     * Runs {@code action} on every job, {@code parallel} at most at once, and returns when it ended for all: on daemon
     * threads that live only for this call, and never keep the JVM up.
     */
    private void inParallel(int parallel, String threadName, Consumer<JobCoordinator> action) {
        List<JobCoordinator> jobs = new ArrayList<>(all());
        if (jobs.isEmpty()) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(jobs.size(), parallel), runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        try {
            CompletableFuture.allOf(jobs.stream()
                            .map(job -> CompletableFuture.runAsync(() -> action.accept(job), pool))
                            .toArray(CompletableFuture<?>[]::new))
                    .join();
        } finally {
            pool.shutdown();
        }
    }
}
