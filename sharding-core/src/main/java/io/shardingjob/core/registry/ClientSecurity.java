package io.shardingjob.core.registry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a configuration's {@link RegistryConfiguration.Security} sets up on the client {@link RegistryCenter} builds: the
 * TLS stores written where ZooKeeper's client reads them, the SASL login, the digest, and ACLs that let only the
 * creating identity read or change our nodes; and, when start-up fails, which of those settings to check. A client of
 * the application's own comes secured as the application built it.
 */
final class ClientSecurity implements AutoCloseable {

    /** Under {@link RegistryCenter}'s name, as before the set-up had a class of its own: log settings apply. */
    private static final Logger log = LoggerFactory.getLogger(RegistryCenter.class);

    private static final String PLAINTEXT_HINT = "sharding.zookeeper.connect-string / connection-timeout";
    private static final String TLS_HINT = PLAINTEXT_HINT
            + " / ssl.bundle: over TLS, the address must be a secureClientPort, the bundle's trust store must trust"
            + " the server's certificate (which must name the host unless host name verification is off), and the"
            + " bundle must hold a key if the server asks for a client certificate";
    private final @Nullable RegistryTls tls;
    private final @Nullable TlsStoreFiles tlsFiles;
    private final @Nullable SaslLogin saslLogin;

    /** The setting of this application's identity (a digest, a SASL login), or null when it has none of its own. */
    private final @Nullable String identitySetting;

    private final String connectionHint;

    private ClientSecurity(
            @Nullable RegistryTls tls,
            @Nullable TlsStoreFiles tlsFiles,
            @Nullable SaslLogin saslLogin,
            @Nullable String identitySetting,
            String connectionHint) {
        this.tls = tls;
        this.tlsFiles = tlsFiles;
        this.saslLogin = saslLogin;
        this.identitySetting = identitySetting;
        this.connectionHint = connectionHint;
    }

    /** For a client of the application's own: nothing to set up, nothing to close. */
    static ClientSecurity ofApplicationsClient() {
        return new ClientSecurity(null, null, null, null, "the application's own CuratorFramework");
    }

    /** Sets {@code builder} up as {@code security} says, writing the TLS stores and making the SASL login. */
    static ClientSecurity configure(RegistryConfiguration.Security security, CuratorFrameworkFactory.Builder builder) {
        if (security.digest() != null) {
            builder.authorization("digest", security.digest().getBytes(StandardCharsets.UTF_8));
        }
        if (security.digest() != null || security.sasl() != null) {
            builder.aclProvider(new CreatorOnlyAclProvider());
        }
        ZKClientConfig clientConfig = new ZKClientConfig();
        RegistryTls tls = security.tls();
        TlsStoreFiles tlsFiles = tls == null ? null : TlsStoreFiles.forClient(tls, clientConfig);
        SaslLogin saslLogin = security.sasl() == null ? null : SaslLogin.configure(security.sasl(), clientConfig);
        if (tls != null || saslLogin != null) {
            builder.zkClientConfig(clientConfig);
        }
        String identitySetting = security.digest() != null
                ? "sharding.zookeeper.digest"
                : saslLogin != null ? "sharding.zookeeper.sasl.*" : null;
        return new ClientSecurity(tls, tlsFiles, saslLogin, identitySetting, tls == null ? PLAINTEXT_HINT : TLS_HINT);
    }

    /** Before the client starts: the SASL login hears ZooKeeper's answer to it. */
    void listenTo(CuratorFramework unrooted) {
        if (saslLogin != null) {
            unrooted.getCuratorListenable().addListener(saslLogin);
        }
    }

    /**
     * Why a start-up failed, naming what to check: a SASL login ZooKeeper refused or never confirmed; no connection
     * within {@code connectionTimeout} (over TLS, with the cause a handshake of its own finds); or, with an identity of
     * this application's, a namespace that identity may not read. ZooKeeper accepts any digest (the identity is the
     * digest), so a wrong one would otherwise show only as refused reads once the jobs start.
     *
     * @param client the client, rooted at the namespace
     */
    Optional<String> startFailure(CuratorFramework client, boolean connected, Duration connectionTimeout) {
        String where = client.getZookeeperClient().getCurrentConnectionString();
        Optional<String> unconfirmed = saslLogin == null
                ? Optional.empty()
                : saslLogin.awaitProblem(connected ? connectionTimeout : Duration.ZERO);
        if (unconfirmed.isPresent() && (connected || saslLogin.refused())) {
            return Optional.of("ZooKeeper at '" + where + "' " + unconfirmed.get()
                    + ": check sharding.zookeeper.sasl.* against the server's JAAS section (Server), its authProvider"
                    + " (SASLAuthenticationProvider) and, for DIGEST-MD5, its zookeeper.fips-mode=false");
        }
        if (!connected) {
            String found = tls == null
                    ? ""
                    : TlsDiagnosis.of(tls, where, connectionTimeout)
                            .map(diagnosis -> diagnosis + "; ")
                            .orElse("");
            return Optional.of("Could not connect to ZooKeeper at '" + where + "' within "
                    + connectionTimeout.toMillis() + " ms (" + found + connectionHint + ")");
        }
        return identitySetting == null ? Optional.empty() : namespaceRefused(client);
    }

    private Optional<String> namespaceRefused(CuratorFramework client) {
        try {
            client.getData().forPath("/");
            return Optional.empty();
        } catch (KeeperException.NoAuthException refused) {
            return Optional.of("ZooKeeper refuses this application's identity access to its namespace"
                    + " '/" + client.getNamespace() + "', whose nodes another identity created: check "
                    + identitySetting + " (every instance of the application must use the same identity)");
        } catch (Exception notAboutIdentity) {
            // No namespace yet (this identity creates it), or a failure the jobs report when they start.
            log.debug("Could not read the namespace to check this identity's access: {}", notAboutIdentity.toString());
            return Optional.empty();
        }
    }

    /** Deletes the TLS stores and forgets the SASL login's JAAS section; the client must be closed first. */
    @Override
    public void close() {
        if (tlsFiles != null) {
            tlsFiles.close();
        }
        if (saslLogin != null) {
            saslLogin.close();
        }
    }

    private static final class CreatorOnlyAclProvider implements ACLProvider {

        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    }
}
