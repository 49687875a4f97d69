/**
 * Resharding: the reshard flag, the assignment the leader computes and writes, and dynamic sharding; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.sharding;

import org.jspecify.annotations.NullMarked;
