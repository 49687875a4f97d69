package io.shardingjob.boot.autoconfigure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** How to reach ZooKeeper, under {@code sharding.zookeeper}. */
public class ZooKeeperProperties {

    /** The ensemble, e.g. zk1:2181,zk2:2181,zk3:2181; defaults to the embedded server's address when it runs. */
    private @Nullable String connectString;

    /** The root node of this application's jobs; defaults to spring.application.name, or "sharding". */
    private @Nullable String namespace;

    /** How long ZooKeeper keeps the session of a silent instance; a dead instance loses its items after this. */
    private Duration sessionTimeout = Duration.ofSeconds(10);

    /** How long start-up waits for the first connection before failing. */
    private Duration connectionTimeout = Duration.ofSeconds(10);

    /** The first pause between retries of a failed ZooKeeper operation, doubled on every retry. */
    private Duration baseSleepTime = Duration.ofSeconds(1);

    /** How many times a failed ZooKeeper operation is retried. */
    private int maxRetries = 3;

    /** The longest pause between retries. */
    private Duration maxSleepTime = Duration.ofSeconds(3);

    /** Optional user:password for digest authentication; nodes are then readable only by that identity. */
    private @Nullable String digest;

    /** The largest difference between this instance's clock and ZooKeeper's before health and console warn of it. */
    private Duration maxClockSkew = Duration.ofSeconds(5);

    private final Embedded embedded = new Embedded();

    private final Ssl ssl = new Ssl();

    private final Sasl sasl = new Sasl();

    public @Nullable String getConnectString() {
        return connectString;
    }

    public void setConnectString(@Nullable String connectString) {
        this.connectString = connectString;
    }

    public @Nullable String getNamespace() {
        return namespace;
    }

    public void setNamespace(@Nullable String namespace) {
        this.namespace = namespace;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public Duration getBaseSleepTime() {
        return baseSleepTime;
    }

    public void setBaseSleepTime(Duration baseSleepTime) {
        this.baseSleepTime = baseSleepTime;
    }

    public int getMaxRetries() {
        return maxRetries;
    }

    public void setMaxRetries(int maxRetries) {
        this.maxRetries = maxRetries;
    }

    public Duration getMaxSleepTime() {
        return maxSleepTime;
    }

    public void setMaxSleepTime(Duration maxSleepTime) {
        this.maxSleepTime = maxSleepTime;
    }

    public @Nullable String getDigest() {
        return digest;
    }

    public void setDigest(@Nullable String digest) {
        this.digest = digest;
    }

    public Duration getMaxClockSkew() {
        return maxClockSkew;
    }

    public void setMaxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public Sasl getSasl() {
        return sasl;
    }

    public Embedded getEmbedded() {
        return embedded;
    }

    /** A ZooKeeper server inside the application, for development. */
    public static class Embedded {

        /** Whether to start a ZooKeeper server inside the application. */
        private boolean enabled;

        /** The port the embedded server listens on; 0 picks a free one. */
        private int port = 2181;

        /** Where the embedded server keeps its data; by default a temporary directory deleted at shutdown. */
        private @Nullable String dataDirectory;

        /** The embedded server's tick; sessions may last from 2 to 20 ticks. */
        private Duration tickTime = Duration.ofMillis(500);

        private final Ssl ssl = new Ssl();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public @Nullable String getDataDirectory() {
            return dataDirectory;
        }

        public void setDataDirectory(@Nullable String dataDirectory) {
            this.dataDirectory = dataDirectory;
        }

        public Duration getTickTime() {
            return tickTime;
        }

        public void setTickTime(Duration tickTime) {
            this.tickTime = tickTime;
        }

        public Ssl getSsl() {
            return ssl;
        }

        /** TLS served by the embedded server, under {@code sharding.zookeeper.embedded.ssl}. */
        public static class Ssl {

            /**
             * The SSL bundle whose key the embedded server serves TLS only with; a trust store in it makes the server
             * ask clients for a certificate it trusts. None for plaintext.
             */
            private @Nullable String bundle;

            public @Nullable String getBundle() {
                return bundle;
            }

            public void setBundle(@Nullable String bundle) {
                this.bundle = bundle;
            }
        }
    }

    /** TLS to the ensemble's secure client port, under {@code sharding.zookeeper.ssl}. */
    public static class Ssl {

        /** The SSL bundle (spring.ssl.bundle.*) to connect with over TLS; none for a plaintext connection. */
        private @Nullable String bundle;

        /** Whether the server's certificate must name the host connected to. */
        private boolean verifyHostName = true;

        public @Nullable String getBundle() {
            return bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }

        public boolean isVerifyHostName() {
            return verifyHostName;
        }

        public void setVerifyHostName(boolean verifyHostName) {
            this.verifyHostName = verifyHostName;
        }
    }

    /** SASL authentication to ZooKeeper, under {@code sharding.zookeeper.sasl}. */
    public static class Sasl {

        /** The DIGEST-MD5 user; with a password, the library makes the JAAS login itself. */
        private @Nullable String username;

        /** The DIGEST-MD5 user's password. */
        private @Nullable String password;

        /** A section of the JVM's JAAS configuration to log in with instead (Kerberos, say). */
        private @Nullable String loginContext;

        /** The ZooKeeper servers' Kerberos principal, such as zookeeper/zk1.example.com@EXAMPLE.COM. */
        private @Nullable String serverPrincipal;

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable String getLoginContext() {
            return loginContext;
        }

        public void setLoginContext(@Nullable String loginContext) {
            this.loginContext = loginContext;
        }

        public @Nullable String getServerPrincipal() {
            return serverPrincipal;
        }

        public void setServerPrincipal(@Nullable String serverPrincipal) {
            this.serverPrincipal = serverPrincipal;
        }
    }
}
