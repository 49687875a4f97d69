/**
 * The test kit for applications with sharded jobs. {@link io.shardingjob.test.ShardingTest} gives each test a {@link
 * io.shardingjob.test.ShardingCluster}: a ZooKeeper in the test's process (one server, or an ensemble whose {@link
 * io.shardingjob.test.ZooKeeperServer}s a test stops and restarts) on which it starts instances of the application or
 * of job beans alone ({@link io.shardingjob.test.ShardingInstance}), fires their jobs and waits for each fire, cuts,
 * freezes or expires one instance, moves the instances' one {@link io.shardingjob.test.MovableClock} to make their
 * schedules fire, and judges the fire ({@link io.shardingjob.test.FireRecord}): every item ran once, and none on two
 * instances at once.
 */
@NullMarked
package io.shardingjob.test;

import org.jspecify.annotations.NullMarked;
