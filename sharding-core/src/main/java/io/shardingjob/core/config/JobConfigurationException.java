package io.shardingjob.core.config;

/**
 * A job configuration value is invalid. Carries the job and the property so that callers (the starter's failure
 * analyzer, an operator's tool) can say exactly what to change.
 */
public final class JobConfigurationException extends IllegalArgumentException {

    private final String jobName;

    private final String property;

    public JobConfigurationException(String jobName, String property, String problem) {
        super("Job '" + jobName + "': invalid " + property + ": " + problem);
        this.jobName = jobName;
        this.property = property;
    }

    /** The job whose configuration is invalid. */
    public String jobName() {
        return jobName;
    }

    /** The configuration property that is invalid, named as in {@link JobConfiguration}, e.g. {@code cron}. */
    public String property() {
        return property;
    }
}
