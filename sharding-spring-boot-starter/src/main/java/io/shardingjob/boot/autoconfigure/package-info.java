/**
 * The auto-configurations of sharded jobs, one per concern, with their properties ({@code sharding.*}), the connection
 * details of ZooKeeper, the resolution of each job's configuration from the annotation and the properties, the
 * lifecycle that starts and stops the jobs, and the failure analyzers of bad settings. What they set up lives in the
 * feature packages: {@code jobs}, {@code alerts}, {@code executionlog}, {@code zookeeper}, {@code console}, {@code
 * actuate}, {@code operations} (the operators' actions the endpoint and the console share, and their audit) and {@code
 * observation}.
 */
@NullMarked
package io.shardingjob.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
