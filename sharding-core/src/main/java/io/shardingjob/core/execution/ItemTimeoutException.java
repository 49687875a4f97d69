package io.shardingjob.core.execution;

import java.time.Duration;

/** The failure recorded for an item that ran longer than its job's timeout and was interrupted. */
public final class ItemTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ItemTimeoutException(String jobName, int item, Duration timeout, Throwable thrown) {
        super(
                "Job '" + jobName + "': item " + item + " exceeded its timeout of " + timeout + " and was interrupted",
                thrown);
    }
}
