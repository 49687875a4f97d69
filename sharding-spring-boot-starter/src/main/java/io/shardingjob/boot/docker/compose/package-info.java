/**
 * The service connection of a {@code zookeeper} service of a Docker Compose file, which tells the sharded jobs where
 * ZooKeeper is. Used only when {@code spring-boot-docker-compose} is on the class path.
 */
@NullMarked
package io.shardingjob.boot.docker.compose;

import org.jspecify.annotations.NullMarked;
