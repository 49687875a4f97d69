package io.shardingjob.core;

import io.shardingjob.core.config.JobConfigurationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs of one application, by name. Two jobs with one name would share ZooKeeper state and corrupt each other's
 * assignment, so the second is refused before it touches the registry.
 */
public final class ShardedJobs implements AutoCloseable {

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

    /** Starts every job; if one fails, those already started are closed again. */
    public void startAll() {
        List<JobCoordinator> started = new ArrayList<>();
        try {
            for (JobCoordinator job : all()) {
                job.start();
                started.add(job);
            }
        } catch (RuntimeException ex) {
            started.forEach(JobCoordinator::close);
            throw ex;
        }
    }

    /** Closes every job, each leaving the registry cleanly. */
    @Override
    public void close() {
        all().forEach(JobCoordinator::close);
    }
}
