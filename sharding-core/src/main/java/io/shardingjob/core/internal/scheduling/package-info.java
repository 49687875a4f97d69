/**
 * The per-job coordination loop behind {@code JobCoordinator}: lifecycle, connection state, fires, item runs, audits
 * and the leader's reconcile; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling;

import org.jspecify.annotations.NullMarked;
