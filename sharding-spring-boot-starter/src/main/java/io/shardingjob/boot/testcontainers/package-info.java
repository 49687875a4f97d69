/**
 * The service connection of a ZooKeeper container in tests: {@code @ServiceConnection} on a container of the
 * {@code zookeeper} image tells the sharded jobs where ZooKeeper is. Used only when {@code spring-boot-testcontainers} is
 * on the class path.
 */
@NullMarked
package io.shardingjob.boot.testcontainers;

import org.jspecify.annotations.NullMarked;
