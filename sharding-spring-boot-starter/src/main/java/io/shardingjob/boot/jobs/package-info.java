/**
 * The sharded jobs of the application at run time: the {@code @ShardedJob} methods found, each job's coordinator and
 * its trigger on Spring's {@code TaskScheduler} (one reading of every cron for the triggers and the ledger's
 * schedules), the pools the jobs share, the jobs defined while the service runs, and {@link
 * io.shardingjob.boot.ShardingOperations}. Set up by the auto-configurations from {@code sharding.*}.
 */
@NullMarked
package io.shardingjob.boot.jobs;

import org.jspecify.annotations.NullMarked;
