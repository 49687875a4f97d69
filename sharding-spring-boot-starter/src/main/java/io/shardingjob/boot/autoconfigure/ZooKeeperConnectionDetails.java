package io.shardingjob.boot.autoconfigure;

import io.shardingjob.core.registry.RegistrySasl;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the ZooKeeper ensemble of the sharded jobs is, and how to authenticate to it. By default it comes from
 * {@code sharding.zookeeper.*} (or the embedded server); a bean of this type replaces them, as do Spring Boot's service
 * connections: a ZooKeeper container annotated {@code @ServiceConnection} in a test, or a {@code zookeeper} service of a
 * Docker Compose file.
 */
public interface ZooKeeperConnectionDetails extends ConnectionDetails {

    /**
     * The ensemble as ZooKeeper's client takes it: {@code host:port} pairs separated by commas, such as
     * {@code zk1:2181,zk2:2181,zk3:2181}.
     */
    String getConnectString();

    /** {@code user:password} for digest authentication, or null for none. */
    default @Nullable String getDigest() {
        return null;
    }

    /** SASL authentication (DIGEST-MD5, or a JAAS section of the application's own), or null for none. */
    default @Nullable RegistrySasl getSasl() {
        return null;
    }

    /** The SSL bundle to connect over TLS with (to the ensemble's secure client port), or null for plaintext. */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }
}
