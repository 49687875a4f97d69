/** Auto-configuration of sharded jobs: properties, registry, threads, discovery of {@code @ShardedJob} and lifecycle. */
@NullMarked
package io.shardingjob.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
