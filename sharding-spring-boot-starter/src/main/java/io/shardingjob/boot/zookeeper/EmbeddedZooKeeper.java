package io.shardingjob.boot.zookeeper;

import java.io.File;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.metrics.impl.NullMetricsProvider;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ServerMetrics;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.ClassUtils;
import org.springframework.util.FileSystemUtils;

/**
 * A standalone ZooKeeper server inside the application, so that a single instance runs with nothing else installed.
 * It uses ZooKeeper's own server classes without {@code ZooKeeperServerMain}, which would also start an admin web
 * server on port 8080. It listens on the loopback address only: it is meant for development, not for a cluster.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    private static final int MAX_CLIENT_CONNECTIONS = 60;

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    private final int port;

    private final @Nullable Path dataDirectory;

    private final Duration tickTime;

    private final @Nullable Tls tls;

    private @Nullable Path directoryInUse;

    private @Nullable ServerCnxnFactory connections;

    private @Nullable ServedTls servedTls;

    /**
     * TLS served by the embedded server, on its only port.
     *
     * @param keyStore the server's key and certificate chain
     * @param keyPassword the password of the key, or null for none
     * @param trustStore the certificates a client's must chain to, or null to ask clients for no certificate
     */
    public record Tls(
            KeyStore keyStore,
            @Nullable String keyPassword,
            @Nullable KeyStore trustStore) {

        /** Says what the stores hold, never the password. */
        @Override
        public String toString() {
            return "Tls[own key, " + (trustStore == null ? "no client certificate asked" : "client certificate needed")
                    + "]";
        }
    }

    /**
     * @param port the port to listen on, 0 for a free one
     * @param dataDirectory where to keep data, or {@code null} for a temporary directory deleted on close
     * @param tickTime ZooKeeper's basic time unit; sessions may last from 2 to 20 ticks
     */
    public EmbeddedZooKeeper(int port, @Nullable Path dataDirectory, Duration tickTime) {
        this(port, dataDirectory, tickTime, null);
    }

    /**
     * @param port the port to listen on, 0 for a free one
     * @param dataDirectory where to keep data, or {@code null} for a temporary directory deleted on close
     * @param tickTime ZooKeeper's basic time unit; sessions may last from 2 to 20 ticks
     * @param tls TLS to serve on the port (and no plaintext), or null for plaintext
     */
    public EmbeddedZooKeeper(int port, @Nullable Path dataDirectory, Duration tickTime, @Nullable Tls tls) {
        this.port = port;
        this.dataDirectory = dataDirectory;
        this.tickTime = tickTime;
        this.tls = tls;
    }

    /**
     * Fails clearly when the libraries ZooKeeper's server needs at runtime, but declares {@code provided}, are missing:
     * the starter brings them, so an application that excluded them gets this rather than a bare
     * {@code NoClassDefFoundError} from the server.
     */
    public static void checkServerDependencies(@Nullable ClassLoader loader) {
        boolean metrics = ClassUtils.isPresent("com.codahale.metrics.Reservoir", loader);
        boolean snappy = ClassUtils.isPresent("org.xerial.snappy.SnappyInputStream", loader);
        if (!metrics || !snappy) {
            throw new InvalidConfigurationPropertyValueException(
                    "sharding.zookeeper.embedded.enabled",
                    true,
                    "ZooKeeper's server needs io.dropwizard.metrics:metrics-core (4.1.12.1) and"
                            + " org.xerial.snappy:snappy-java (1.1.10.5) at runtime, which the starter brings but this"
                            + " application excludes; remove the exclusion, or set sharding.zookeeper.connect-string"
                            + " instead");
        }
    }

    /** Starts the server and waits until it accepts connections. */
    public void start() throws IOException, InterruptedException {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("The embedded ZooKeeper can be started only once");
        }
        Path directory = dataDirectory != null ? dataDirectory : Files.createTempDirectory("embedded-zookeeper");
        directoryInUse = directory;
        try {
            // A development server needs no metrics; the null provider spares ZooKeeper's default histograms. It is
            // process-wide, as ZooKeeperServerMain sets it too.
            ServerMetrics.metricsProviderInitialized(NullMetricsProvider.INSTANCE);
            File data = directory.toFile();
            ZooKeeperServer server = new ZooKeeperServer(data, data, Math.toIntExact(tickTime.toMillis()));
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            ServerCnxnFactory factory;
            if (tls == null) {
                factory = ServerCnxnFactory.createFactory(address, MAX_CLIENT_CONNECTIONS);
            } else {
                servedTls = ServedTls.serve(tls);
                factory = ServedTls.nettyFactory();
                factory.configure(address, MAX_CLIENT_CONNECTIONS, -1, true);
            }
            connections = factory;
            factory.startup(server);
        } catch (BindException ex) {
            close();
            throw new InvalidConfigurationPropertyValueException(
                    "sharding.zookeeper.embedded.port",
                    port,
                    "the port is in use (another ZooKeeper?); set another port, or 0 for a free one",
                    ex);
        } catch (IOException | InterruptedException | RuntimeException | LinkageError ex) {
            // The container does not call close() on a bean that failed to start: clean up here.
            close();
            throw ex;
        }
        log.info(
                "Embedded ZooKeeper listening at {}{} (data in {})",
                connectString(),
                tls == null ? "" : " over TLS only",
                directory);
    }

    /** The address clients connect to, with the actual port when port 0 was asked for. */
    public String connectString() {
        if (connections == null) {
            throw new IllegalStateException("The embedded ZooKeeper is not started");
        }
        return address(InetAddress.getLoopbackAddress(), connections.getLocalPort());
    }

    /**
     * {@code host:port}, with an IPv6 address in brackets ({@code [::1]:2181}, the loopback of a JVM that prefers IPv6)
     * as a connect string must have it.
     */
    static String address(InetAddress host, int port) {
        String text = host.getHostAddress();
        return (host instanceof Inet6Address ? "[" + text + "]" : text) + ":" + port;
    }

    @Override
    public void close() {
        if (state.getAndSet(State.CLOSED) != State.STARTED) {
            return;
        }
        if (connections != null) {
            // Shuts the server down together with its connections.
            connections.shutdown();
        }
        if (servedTls != null) {
            servedTls.close();
        }
        if (dataDirectory == null && directoryInUse != null) {
            try {
                FileSystemUtils.deleteRecursively(directoryInUse);
            } catch (IOException ex) {
                log.warn("Could not delete the embedded ZooKeeper's data in {}: {}", directoryInUse, ex.toString());
            }
        }
        log.info("Embedded ZooKeeper stopped");
    }
}
