/**
 * The {@code sharding} Actuator endpoint, the health indicator and the Micrometer meters of sharded jobs.
 *
 * <p>The endpoint's JSON documents are records named for what they describe: {@link ShardingDescriptor} (this instance
 * and a {@link JobSummary} of each job, with its {@link ClockSkewDescriptor}), {@link JobDescriptor} (one job's
 * {@link InstanceDescriptor instances}, {@link ItemDescriptor items} and recent {@link ExecutionDescriptor executions}),
 * {@link ExecutionsDescriptor} (a page of the execution log) and {@link ActionResult} (the answer to a write). Operators'
 * scripts read them, so their components' names and order are the contract. Times are ISO-8601 strings, so that the
 * output does not depend on how the application's JSON mapper writes dates. Actuator's mapper leaves out null fields;
 * the documents that have some keep them ({@code "leader": null} means "no leader"), so that every documented field is
 * always there.
 */
@NullMarked
package io.shardingjob.boot.actuate;

import org.jspecify.annotations.NullMarked;
