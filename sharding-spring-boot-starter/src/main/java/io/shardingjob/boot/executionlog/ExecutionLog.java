package io.shardingjob.boot.executionlog;

import io.shardingjob.boot.ExecutionPage;

/** Where the operations read a job's executions from: the in-memory history, or the database when it is on. */
public interface ExecutionLog {

    /** A page of a job's executions, newest first. */
    ExecutionPage executions(String job, int page, int size);
}
