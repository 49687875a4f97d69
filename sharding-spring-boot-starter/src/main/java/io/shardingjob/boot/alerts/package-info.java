/**
 * Alerts of the sharded jobs: failed items and fires, missed fires and overruns, raised once per fire and handed to
 * every {@link io.shardingjob.boot.ShardedJobAlertListener} off the jobs' threads, kept for the console and posted to a
 * webhook. Turned on by {@code sharding.alerts.enabled}.
 */
@NullMarked
package io.shardingjob.boot.alerts;

import org.jspecify.annotations.NullMarked;
