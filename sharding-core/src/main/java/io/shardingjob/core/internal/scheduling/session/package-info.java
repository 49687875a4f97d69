/**
 * The job's reactions to the world around its fires: registry changes (assignment, leader, manual fires), the
 * connection's state (the one place it is handled), the leader's reconcile, and the graceful close.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling.session;

import org.jspecify.annotations.NullMarked;
