package io.shardingjob.core.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which fires of its upstream jobs a job {@linkplain JobConfiguration#after() following them} fires for. Property
 * {@code on}.
 */
public enum FollowOn {
    /** The upstream fire's every item succeeded. The default: a failed settlement is not exported. */
    SUCCESS,
    /** The upstream fire's every item ended, succeeded or failed (skipped items count as ended). */
    COMPLETION;

    /** The setting's value as written: {@code success} or {@code completion}. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads a value as written in a property or in ZooKeeper, in any case.
     *
     * @throws JobConfigurationException naming the job and the property when it is neither value
     */
    public static FollowOn parse(String jobName, String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            throw new JobConfigurationException(
                    jobName,
                    JobSetting.ON.key(),
                    "'" + value + "' is not one of "
                            + Arrays.stream(values()).map(FollowOn::value).collect(Collectors.joining(", ")));
        }
    }

    @Override
    public String toString() {
        return value();
    }
}
