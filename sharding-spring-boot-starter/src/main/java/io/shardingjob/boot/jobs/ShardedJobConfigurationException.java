package io.shardingjob.boot.jobs;

import org.jspecify.annotations.Nullable;

/**
 * A sharded job cannot start because of how it is declared or configured. It names the job, the property (as a
 * {@code sharding.jobs.*} key, or the method for a signature problem) and what to change, for
 * {@link ShardedJobFailureAnalyzer}.
 */
public final class ShardedJobConfigurationException extends RuntimeException {

    private final String jobName;

    private final String property;

    private final String action;

    public ShardedJobConfigurationException(
            String jobName, String property, String problem, String action, @Nullable Throwable cause) {
        super("Sharded job '" + jobName + "': " + problem, cause);
        this.jobName = jobName;
        this.property = property;
        this.action = action;
    }

    public String jobName() {
        return jobName;
    }

    /** The property to change, e.g. {@code sharding.jobs.orderSync.cron}. */
    public String property() {
        return property;
    }

    /** What to change, for the failure analysis. */
    public String action() {
        return action;
    }
}
