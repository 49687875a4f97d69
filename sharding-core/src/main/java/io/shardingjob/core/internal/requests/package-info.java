/**
 * How one client's requests reach ZooKeeper: on the session's own handle, traced, and the multis of every job of the
 * client merged while one is on its way; used by the fire ledger and the registry cache; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.requests;

import org.jspecify.annotations.NullMarked;
