/**
 * The operations console: HTML pages of the jobs rendered on the server, kept live by htmx, with the operations of
 * {@link io.shardingjob.boot.ShardingOperations} behind a confirmation. Turned on by {@code sharding.console.enabled}.
 */
@NullMarked
package io.shardingjob.boot.console;

import org.jspecify.annotations.NullMarked;
