/**
 * What users of the starter touch: {@link io.shardingjob.boot.ShardedJob}, the operations facade
 * {@link io.shardingjob.boot.ShardingOperations}, and the extension points
 * {@link io.shardingjob.boot.ShardedJobListener} and {@link io.shardingjob.boot.ShardedJobConfigurationCustomizer}.
 */
@NullMarked
package io.shardingjob.boot;

import org.jspecify.annotations.NullMarked;
