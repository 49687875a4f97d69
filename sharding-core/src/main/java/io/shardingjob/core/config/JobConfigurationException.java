package io.shardingjob.core.config;

import java.util.Optional;

/**
 * A job configuration value is invalid. Carries the job and the property so that callers (the starter's failure
 * analyzer, an operator's tool) can say exactly what to change; when the value is refused only because of another
 * property (two settings that contradict each other), it names that one too, since changing either one fixes it.
 */
public final class JobConfigurationException extends IllegalArgumentException {

    private final String jobName;
    private final String property;
    private final String conflictingProperty;

    public JobConfigurationException(String jobName, String property, String problem) {
        this(jobName, property, problem, null);
    }

    public JobConfigurationException(String jobName, String property, String problem, String conflictingProperty) {
        super("Job '" + jobName + "': invalid " + property + ": " + problem);
        this.jobName = jobName;
        this.property = property;
        this.conflictingProperty = conflictingProperty;
    }

    public String jobName() {
        return jobName;
    }

    /** The configuration property that is invalid, named as in {@link JobConfiguration}, e.g. {@code cron}. */
    public String property() {
        return property;
    }

    /**
     * The property whose value contradicts {@link #property()}, e.g. {@code dynamicSharding} for item parameters;
     * empty when the value is invalid on its own.
     */
    public Optional<String> conflictingProperty() {
        return Optional.ofNullable(conflictingProperty);
    }
}
