package io.shardingjob.boot;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a job's execution log, newest first.
 *
 * @param job the job
 * @param page the page number, from 0
 * @param size the page size asked for
 * @param store where the log is kept: {@code memory} (this instance's recent executions) or {@code jdbc} (every
 *     instance's, in the database)
 * @param executions the executions of the page
 * @param writes how the database log has fared since start-up, {@code null} for the in-memory one
 */
public record ExecutionPage(
        String job,
        int page,
        int size,
        String store,
        List<ExecutionRecord> executions,
        @Nullable Writes writes) {

    /**
     * @param written executions written to the database
     * @param failed executions lost because the database failed or did not answer (each outage is logged once)
     * @param dropped executions lost because too many were waiting to be written
     */
    public record Writes(long written, long failed, long dropped) {}
}
