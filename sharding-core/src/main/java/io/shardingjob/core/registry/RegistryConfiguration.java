package io.shardingjob.core.registry;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to reach the ZooKeeper ensemble: {@link #of} gives the defaults, and each {@code with} method changes one setting,
 * checked at once.
 *
 * @param connectString the ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181}: {@code host} or {@code host:port} entries
 *     (an IPv4 address, a host name, or an IPv6 address in brackets as in {@code [::1]:2181}), optionally followed by a
 *     chroot path ({@code zk1:2181,zk2:2181/apps}); checked here, so that a malformed one fails at once instead of
 *     after the whole connection timeout
 * @param namespace the root node under which every job lives, so that several applications can share an ensemble
 * @param sessionTimeout how long ZooKeeper keeps the session of a silent instance; an instance that dies loses its
 *     items after this long
 * @param connectionTimeout how long start-up waits for the first connection before failing
 * @param retry how a failed operation is retried
 * @param maxClockSkew the largest difference between this instance's wall clock and ZooKeeper's that is tolerated
 *     before {@link RegistryCenter#clockSkew()} says it is exceeded
 * @param security the connection's TLS and this application's identity
 */
public record RegistryConfiguration(
        String connectString,
        String namespace,
        Duration sessionTimeout,
        Duration connectionTimeout,
        Retry retry,
        Duration maxClockSkew,
        Security security) {

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
        positive(maxClockSkew, "maxClockSkew");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(security, "security");
    }

    /**
     * Defaults: 10 s session, 10 s connection timeout, 3 retries from 1 s up to 3 s, 5 s of clock skew, a plaintext
     * connection and no authentication.
     */
    public static RegistryConfiguration of(String connectString, String namespace) {
        return new RegistryConfiguration(
                connectString,
                namespace,
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                new Retry(Duration.ofSeconds(1), 3, Duration.ofSeconds(3)),
                DEFAULT_MAX_CLOCK_SKEW,
                new Security(null, null, null));
    }

    public RegistryConfiguration withSessionTimeout(Duration sessionTimeout) {
        return new RegistryConfiguration(
                connectString, namespace, sessionTimeout, connectionTimeout, retry, maxClockSkew, security);
    }

    public RegistryConfiguration withConnectionTimeout(Duration connectionTimeout) {
        return new RegistryConfiguration(
                connectString, namespace, sessionTimeout, connectionTimeout, retry, maxClockSkew, security);
    }

    public RegistryConfiguration withRetry(Retry retry) {
        return new RegistryConfiguration(
                connectString, namespace, sessionTimeout, connectionTimeout, retry, maxClockSkew, security);
    }

    public RegistryConfiguration withMaxClockSkew(Duration maxClockSkew) {
        return new RegistryConfiguration(
                connectString, namespace, sessionTimeout, connectionTimeout, retry, maxClockSkew, security);
    }

    /** With digest authentication: only that identity may read or change the nodes. */
    public RegistryConfiguration withDigest(@Nullable String digest) {
        return withSecurity(new Security(digest, security.tls(), security.sasl()));
    }

    /** Over TLS to the ensemble's secure client port. */
    public RegistryConfiguration withTls(@Nullable RegistryTls tls) {
        return withSecurity(new Security(security.digest(), tls, security.sasl()));
    }

    /** With SASL authentication: the session is known by that identity, and only it may read or change the nodes. */
    public RegistryConfiguration withSasl(@Nullable RegistrySasl sasl) {
        return withSecurity(new Security(security.digest(), security.tls(), sasl));
    }

    private RegistryConfiguration withSecurity(Security security) {
        return new RegistryConfiguration(
                connectString, namespace, sessionTimeout, connectionTimeout, retry, maxClockSkew, security);
    }

    /**
     * How a failed operation is retried: with exponential back-off.
     *
     * @param baseSleepTime the first pause between retries of a failed operation, doubled on every retry
     * @param maxRetries how many times a failed operation is retried
     * @param maxSleepTime the longest pause between retries
     */
    public record Retry(Duration baseSleepTime, int maxRetries, Duration maxSleepTime) {

        public Retry {
            positive(baseSleepTime, "baseSleepTime");
            positive(maxSleepTime, "maxSleepTime");
            if (maxRetries < 0) {
                throw new InvalidRegistrySettingException(
                        "maxRetries", "maxRetries must not be negative, was " + maxRetries);
            }
        }
    }

    /**
     * The connection's TLS and this application's identity; with an identity (a digest or a SASL login) the nodes are
     * created readable and writable only by it.
     *
     * @param digest optional {@code user:password} for digest authentication
     * @param tls TLS to the ensemble's secure client port, or null for a plaintext connection
     * @param sasl SASL authentication, or null for none
     */
    public record Security(
            @Nullable String digest,
            @Nullable RegistryTls tls,
            @Nullable RegistrySasl sasl) {

        public Security {
            if (digest != null && (digest.isBlank() || !digest.contains(":"))) {
                throw new InvalidRegistrySettingException("digest", "The digest must be of the form user:password");
            }
        }

        /** Everything but the digest's password. */
        @Override
        public String toString() {
            return "Security[digest=" + (digest == null ? "none" : digest.substring(0, digest.indexOf(':')) + ":******")
                    + ", tls=" + (tls == null ? "none" : tls) + ", sasl=" + (sasl == null ? "none" : sasl) + "]";
        }
    }

    static void positive(Duration duration, String name) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new InvalidRegistrySettingException(name, name + " must be positive, was " + duration);
        }
    }
}
