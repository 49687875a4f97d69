package io.shardingjob.core.registry;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How to reach the ZooKeeper ensemble.
 *
 * @param connectString the ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181}: {@code host} or {@code host:port} entries
 *     (an IPv4 address, a host name, or an IPv6 address in brackets as in {@code [::1]:2181}), optionally followed by a
 *     chroot path ({@code zk1:2181,zk2:2181/apps}); checked here, so that a malformed one fails at once instead of
 *     after the whole connection timeout
 * @param namespace the root node under which every job lives, so that several applications can share an ensemble
 * @param sessionTimeout how long ZooKeeper keeps the session of a silent instance; an instance that dies loses its
 *     items after this long
 * @param connectionTimeout how long start-up waits for the first connection before failing
 * @param baseSleepTime the first pause between retries of a failed operation, doubled on every retry
 * @param maxRetries how many times a failed operation is retried
 * @param maxSleepTime the longest pause between retries
 * @param digest optional {@code user:password} for digest authentication; nodes are then created readable and writable
 *     only by that identity
 * @param maxClockSkew the largest difference between this instance's wall clock and ZooKeeper's that is tolerated
 *     before {@link RegistryCenter#clockSkew()} says it is exceeded
 * @param tls TLS to the ensemble's secure client port, or null for a plaintext connection
 * @param sasl SASL authentication, or null for none; nodes are then readable and writable only by that identity
 */
public record RegistryConfiguration(
        String connectString,
        String namespace,
        Duration sessionTimeout,
        Duration connectionTimeout,
        Duration baseSleepTime,
        int maxRetries,
        Duration maxSleepTime,
        @Nullable String digest,
        Duration maxClockSkew,
        @Nullable RegistryTls tls,
        @Nullable RegistrySasl sasl) {

    /** The largest clock skew tolerated when none is given: 5 s. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(5);

    public RegistryConfiguration {
        if (connectString == null || connectString.isBlank()) {
            throw new InvalidRegistrySettingException(
                    "connectString", "The ZooKeeper connect string is required, e.g. 'localhost:2181'");
        }
        ConnectString.check(connectString);
        if (namespace == null || namespace.isBlank() || namespace.contains("/")) {
            throw new InvalidRegistrySettingException(
                    "namespace",
                    "The ZooKeeper namespace must be a non-empty node name without '/', was '" + namespace + "'");
        }
        positive(sessionTimeout, "sessionTimeout");
        positive(connectionTimeout, "connectionTimeout");
        positive(baseSleepTime, "baseSleepTime");
        positive(maxSleepTime, "maxSleepTime");
        positive(maxClockSkew, "maxClockSkew");
        if (maxRetries < 0) {
            throw new InvalidRegistrySettingException(
                    "maxRetries", "maxRetries must not be negative, was " + maxRetries);
        }
        if (digest != null && (digest.isBlank() || !digest.contains(":"))) {
            throw new InvalidRegistrySettingException("digest", "The digest must be of the form user:password");
        }
    }

    /** A plaintext connection. */
    public RegistryConfiguration(
            String connectString,
            String namespace,
            Duration sessionTimeout,
            Duration connectionTimeout,
            Duration baseSleepTime,
            int maxRetries,
            Duration maxSleepTime,
            @Nullable String digest,
            Duration maxClockSkew) {
        this(
                connectString,
                namespace,
                sessionTimeout,
                connectionTimeout,
                baseSleepTime,
                maxRetries,
                maxSleepTime,
                digest,
                maxClockSkew,
                null,
                null);
    }

    /** Tolerates a clock skew of {@link #DEFAULT_MAX_CLOCK_SKEW}, over a plaintext connection. */
    public RegistryConfiguration(
            String connectString,
            String namespace,
            Duration sessionTimeout,
            Duration connectionTimeout,
            Duration baseSleepTime,
            int maxRetries,
            Duration maxSleepTime,
            String digest) {
        this(
                connectString,
                namespace,
                sessionTimeout,
                connectionTimeout,
                baseSleepTime,
                maxRetries,
                maxSleepTime,
                digest,
                DEFAULT_MAX_CLOCK_SKEW);
    }

    /** Defaults: 10 s session, 10 s connection timeout, 3 retries from 1 s up to 3 s, no authentication, 5 s of clock skew. */
    public static RegistryConfiguration of(String connectString, String namespace) {
        return new RegistryConfiguration(
                connectString,
                namespace,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                3,
                Duration.ofSeconds(3),
                null,
                DEFAULT_MAX_CLOCK_SKEW);
    }

    public RegistryConfiguration withSessionTimeout(Duration sessionTimeout) {
        Copy copy = copy();
        copy.sessionTimeout = sessionTimeout;
        return copy.build();
    }

    public RegistryConfiguration withConnectionTimeout(Duration connectionTimeout) {
        Copy copy = copy();
        copy.connectionTimeout = connectionTimeout;
        return copy.build();
    }

    public RegistryConfiguration withDigest(@Nullable String digest) {
        Copy copy = copy();
        copy.digest = digest;
        return copy.build();
    }

    public RegistryConfiguration withMaxClockSkew(Duration maxClockSkew) {
        Copy copy = copy();
        copy.maxClockSkew = maxClockSkew;
        return copy.build();
    }

    /** Over TLS to the ensemble's secure client port. */
    public RegistryConfiguration withTls(@Nullable RegistryTls tls) {
        Copy copy = copy();
        copy.tls = tls;
        return copy.build();
    }

    /** With SASL authentication: the session is known by that identity, and only it may read or change the nodes. */
    public RegistryConfiguration withSasl(@Nullable RegistrySasl sasl) {
        Copy copy = copy();
        copy.sasl = sasl;
        return copy.build();
    }

    private Copy copy() {
        Copy copy = new Copy();
        copy.connectString = connectString;
        copy.namespace = namespace;
        copy.sessionTimeout = sessionTimeout;
        copy.connectionTimeout = connectionTimeout;
        copy.baseSleepTime = baseSleepTime;
        copy.maxRetries = maxRetries;
        copy.maxSleepTime = maxSleepTime;
        copy.digest = digest;
        copy.maxClockSkew = maxClockSkew;
        copy.tls = tls;
        copy.sasl = sasl;
        return copy;
    }

    /** The components of a configuration being changed by one of the {@code with} methods, checked again on build. */
    private static final class Copy {

        private String connectString;

        private String namespace;

        private Duration sessionTimeout;

        private Duration connectionTimeout;

        private Duration baseSleepTime;

        private int maxRetries;

        private Duration maxSleepTime;

        private @Nullable String digest;

        private Duration maxClockSkew;

        private @Nullable RegistryTls tls;

        private @Nullable RegistrySasl sasl;

        RegistryConfiguration build() {
            return new RegistryConfiguration(
                    connectString,
                    namespace,
                    sessionTimeout,
                    connectionTimeout,
                    baseSleepTime,
                    maxRetries,
                    maxSleepTime,
                    digest,
                    maxClockSkew,
                    tls,
                    sasl);
        }
    }

    /** Everything but the digest's password. */
    @Override
    public String toString() {
        return "RegistryConfiguration[connectString=" + connectString + ", namespace=" + namespace + ", sessionTimeout="
                + sessionTimeout + ", connectionTimeout=" + connectionTimeout + ", baseSleepTime=" + baseSleepTime
                + ", maxRetries=" + maxRetries + ", maxSleepTime=" + maxSleepTime + ", digest="
                + (digest == null ? "none" : digest.substring(0, digest.indexOf(':')) + ":******") + ", maxClockSkew="
                + maxClockSkew + ", tls=" + (tls == null ? "none" : tls) + ", sasl=" + (sasl == null ? "none" : sasl)
                + "]";
    }

    private static void positive(Duration duration, String name) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new InvalidRegistrySettingException(name, name + " must be positive, was " + duration);
        }
    }
}
