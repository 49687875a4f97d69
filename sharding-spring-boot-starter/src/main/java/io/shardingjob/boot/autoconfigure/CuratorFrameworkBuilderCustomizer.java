package io.shardingjob.boot.autoconfigure;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Customizes the Curator client the sharded jobs share before it is built: an ensemble tracker, a compression
 * provider, an authorization scheme of your own. Every bean of this type is applied, in {@code @Order}, after the
 * settings of {@code sharding.zookeeper.*}. Compression must not be enabled by default ({@code enableCompression()}):
 * the jobs refuse to start on such a client, whose caches could not read the nodes the fire ledger writes raw. Not
 * applied to a {@code CuratorFramework} bean of your own, which the jobs use as it is.
 */
@FunctionalInterface
public interface CuratorFrameworkBuilderCustomizer {

    /** Changes the builder; it already holds the connect string, namespace, timeouts, retry policy and digest. */
    void customize(CuratorFrameworkFactory.Builder builder);
}
