/**
 * The log of item executions: the last ones of each job in memory ({@link
 * io.shardingjob.boot.executionlog.ExecutionHistory}) and, with {@code sharding.execution.jdbc-log.enabled}, every one
 * in a table of the application's {@code DataSource} ({@link io.shardingjob.boot.executionlog.JdbcExecutionLog}).
 */
@NullMarked
package io.shardingjob.boot.executionlog;

import org.jspecify.annotations.NullMarked;
