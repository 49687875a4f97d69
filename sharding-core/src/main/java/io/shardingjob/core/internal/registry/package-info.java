/**
 * The registry of one job: every ZooKeeper path in one class, the cache of its small state and this instance's
 * registration; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.registry;

import org.jspecify.annotations.NullMarked;
