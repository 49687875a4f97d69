package io.shardingjob.boot.zookeeper;

import io.shardingjob.core.registry.TlsStoreFiles;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.server.NettyServerCnxnFactory;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.auth.X509AuthenticationProvider;
import org.jspecify.annotations.Nullable;

/**
 * The embedded server's TLS, set where ZooKeeper's server reads it. Its Netty connection factory (the only one that
 * serves TLS, see {@link #nettyFactory()}) builds each
 * connection's TLS from the JVM's system properties ({@code zookeeper.ssl.*}), with no other way in: the stores are
 * written to files ({@link TlsStoreFiles}: paths in the properties, passwords in files only this user may read), the
 * properties set while the server runs, and what they held before put back on {@link #close()}. Being the JVM's, they
 * allow one such server per JVM at a time.
 */
final class ServedTls implements AutoCloseable {

    private static final String X509 = "x509";

    private static final String X509_PROVIDER = ProviderRegistry.AUTHPROVIDER_PROPERTY_PREFIX + X509;

    private static final AtomicBoolean serving = new AtomicBoolean();

    private final TlsStoreFiles files;

    private final Map<String, @Nullable String> before;

    /** Whether the x509 provider was registered for this server, and is removed with it. */
    private final boolean registeredX509;

    private ServedTls(TlsStoreFiles files, Map<String, @Nullable String> before, boolean registeredX509) {
        this.files = files;
        this.before = before;
        this.registeredX509 = registeredX509;
    }

    static ServedTls serve(EmbeddedZooKeeper.Tls tls) {
        if (!serving.compareAndSet(false, true)) {
            throw new IllegalStateException("An embedded ZooKeeper of this JVM serves TLS already: ZooKeeper's server"
                    + " reads its stores from system properties, so only one may at a time");
        }
        try {
            TlsStoreFiles files = TlsStoreFiles.write(tls.keyStore(), tls.keyPassword(), tls.trustStore());
            Map<String, String> properties = new HashMap<>(files.properties());
            try (ClientX509Util names = new ClientX509Util()) {
                // ZooKeeper's default is "need", against the JDK's trusted authorities when no trust store is given.
                properties.put(names.getSslClientAuthProperty(), tls.trustStore() == null ? "none" : "need");
            }
            // The server authenticates each TLS client with the x509 provider, which ZooKeeper registers only when
            // told to, and which reads the same stores.
            boolean registered = ProviderRegistry.getProvider(X509) != null;
            if (!registered) {
                properties.put(X509_PROVIDER, X509AuthenticationProvider.class.getName());
            }
            Map<String, @Nullable String> before = new HashMap<>();
            properties.forEach((name, value) -> before.put(name, System.setProperty(name, value)));
            if (!registered) {
                ProviderRegistry.addOrUpdateProvider(X509_PROVIDER);
            }
            return new ServedTls(files, before, !registered);
        } catch (RuntimeException ex) {
            serving.set(false);
            throw ex;
        }
    }

    /**
     * ZooKeeper's Netty connection factory, the only one that serves TLS. ZooKeeper takes the factory's class from a
     * system property, read only when a factory is created: it is set for this call alone, not for the server's life,
     * so that no other ZooKeeper server of the JVM is made a Netty one meanwhile.
     */
    static ServerCnxnFactory nettyFactory() throws IOException {
        synchronized (ServedTls.class) {
            String before = System.setProperty(
                    ServerCnxnFactory.ZOOKEEPER_SERVER_CNXN_FACTORY, NettyServerCnxnFactory.class.getName());
            try {
                return ServerCnxnFactory.createFactory();
            } finally {
                if (before == null) {
                    System.clearProperty(ServerCnxnFactory.ZOOKEEPER_SERVER_CNXN_FACTORY);
                } else {
                    System.setProperty(ServerCnxnFactory.ZOOKEEPER_SERVER_CNXN_FACTORY, before);
                }
            }
        }
    }

    /** Puts the system properties back as they were and deletes the stores; the server must be shut down first. */
    @Override
    public void close() {
        if (registeredX509) {
            ProviderRegistry.removeProvider(X509);
        }
        before.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
        files.close();
        serving.set(false);
    }
}
