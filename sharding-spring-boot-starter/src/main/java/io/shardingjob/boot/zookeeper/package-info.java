/**
 * A ZooKeeper server inside the application, for development and tests: {@link
 * io.shardingjob.boot.zookeeper.EmbeddedZooKeeper}, plaintext or TLS only. Started by {@code
 * sharding.zookeeper.embedded.enabled}.
 */
@NullMarked
package io.shardingjob.boot.zookeeper;

import org.jspecify.annotations.NullMarked;
