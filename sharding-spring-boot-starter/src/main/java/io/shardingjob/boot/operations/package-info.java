/**
 * Operators' actions on the jobs, shared by the {@code sharding} Actuator endpoint and the console: each action named
 * once ({@link io.shardingjob.boot.operations.OperatorAction}: its name, what it changes, the inputs it needs and how
 * they are checked, the call of {@link io.shardingjob.boot.ShardingOperations} or
 * {@link io.shardingjob.boot.ShardedJobRegistry} that performs it), performed, logged and audited in one place
 * ({@link io.shardingjob.boot.operations.OperatorActions}, {@link io.shardingjob.boot.operations.OperationAudit}).
 */
@NullMarked
package io.shardingjob.boot.operations;

import org.jspecify.annotations.NullMarked;
