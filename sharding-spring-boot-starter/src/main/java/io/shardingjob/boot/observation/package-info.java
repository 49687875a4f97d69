/**
 * Micrometer observations of sharded jobs: {@code sharding.fire} for each fire of a job on an instance, and
 * {@code sharding.item} for each run of an item, a child of its fire's when it runs in one. Their contexts and
 * conventions; a convention bean of your own renames them or changes their key values.
 */
@NullMarked
package io.shardingjob.boot.observation;

import org.jspecify.annotations.NullMarked;
