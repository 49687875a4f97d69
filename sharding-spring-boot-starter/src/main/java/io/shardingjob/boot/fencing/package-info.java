/**
 * Fenced writes for the jobs' own stores: a store refuses the writes of a run taken over while its process was paused
 * past its session, using the run's {@link io.shardingjob.core.execution.ShardingContext#fencingToken() fencing
 * token}. {@link io.shardingjob.boot.fencing.FencedJdbc} fences updates of the application's rows by a fence column;
 * {@link io.shardingjob.boot.fencing.JdbcFenceStore} keeps the highest token per key in a table of its own, for writes
 * with no row to carry one. For calls to other services, {@link io.shardingjob.boot.fencing.FencingTokenInterceptor}
 * and {@link io.shardingjob.boot.fencing.FencingTokenExchangeFilter} send the run's token as
 * {@link io.shardingjob.boot.fencing.FencingHeaders}, and {@link io.shardingjob.boot.fencing.FencingTokenFilter} (or
 * {@link io.shardingjob.boot.fencing.ReactiveFencingTokenFilter}) admits it in the called service with the store. A
 * refused write throws {@link io.shardingjob.core.execution.FencedOutException}, which ends the run without a retry
 * and reports it as fenced out.
 */
@NullMarked
package io.shardingjob.boot.fencing;

import org.jspecify.annotations.NullMarked;
