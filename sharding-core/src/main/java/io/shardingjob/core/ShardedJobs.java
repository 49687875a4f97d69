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

/**
 * The jobs of one application, by name. Two jobs with one name would share ZooKeeper state and corrupt each other's
 * assignment, so the second is refused before it touches the registry.
 */
public final class ShardedJobs implements AutoCloseable {

    /**
     * Jobs {@link #startAll()} starts at once at most: enough to keep ZooKeeper's log busy committing many jobs' writes
     * together, few enough that the threads waiting for it stay a small constant.
     */
    static final int PARALLEL_STARTS = 64;

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
        List<JobCoordinator> jobs = new ArrayList<>(all());
        if (jobs.isEmpty()) {
            return;
        }
        List<JobCoordinator> started = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        ExecutorService starting = Executors.newFixedThreadPool(Math.min(jobs.size(), PARALLEL_STARTS), runnable -> {
            Thread thread = new Thread(runnable, "sharding-start");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<CompletableFuture<Void>> starts = jobs.stream()
                    .map(job -> CompletableFuture.runAsync(
                            () -> {
                                if (failure.get() != null) {
                                    return;
                                }
                                try {
                                    job.start();
                                    started.add(job);
                                } catch (RuntimeException ex) {
                                    failure.compareAndSet(null, ex);
                                }
                            },
                            starting))
                    .toList();
            CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
        } finally {
            starting.shutdownNow();
        }
        RuntimeException first = failure.get();
        if (first != null) {
            new ArrayList<>(started).forEach(JobCoordinator::close);
            throw first;
        }
    }

    /** Closes every job, each leaving the registry cleanly. */
    @Override
    public void close() {
        all().forEach(JobCoordinator::close);
    }
}
