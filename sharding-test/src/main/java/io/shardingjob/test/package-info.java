/**
 * The test kit for applications with sharded jobs. {@link io.shardingjob.test.ShardingTest} gives each test a {@link
 * io.shardingjob.test.ShardingCluster}: a ZooKeeper server in the test's process on which it starts instances of the
 * application ({@link io.shardingjob.test.ShardingInstance}), fires their jobs and waits for each fire, cuts, freezes or
 * expires one instance, and judges the fire ({@link io.shardingjob.test.FireRecord}): every item ran once, and none on
 * two instances at once.
 */
@NullMarked
package io.shardingjob.test;

import org.jspecify.annotations.NullMarked;
