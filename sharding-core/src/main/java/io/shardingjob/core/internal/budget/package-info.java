/**
 * The coordination budget: what a job costs ZooKeeper against the limits of {@code jute.maxbuffer}, as a pure rule
 * and the figures it reads from a job's configuration, schedule, client and ledger; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.budget;

import org.jspecify.annotations.NullMarked;
