package io.shardingjob.core.registry;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.api.CuratorListener;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registry's SASL login to ZooKeeper: the client's settings for it, the JAAS section it made for a DIGEST-MD5 login
 * (forgotten on {@link #close()}), and ZooKeeper's answer, which comes after the connection. Start-up waits for that
 * answer, so that a wrong credential fails start-up by name instead of leaving a session that every request is refused
 * on; a refusal later (a credential revoked, say) is logged as an error, since the client would otherwise only
 * reconnect.
 */
final class SaslLogin implements CuratorListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SaslLogin.class);
    private final RegistrySasl sasl;

    /** The JAAS section made for a DIGEST-MD5 login; null for a section of the application's own. */
    private final @Nullable String section;

    private final CountDownLatch answered = new CountDownLatch(1);
    private volatile boolean authenticated;
    private volatile boolean refused;

    private SaslLogin(RegistrySasl sasl, @Nullable String section) {
        this.sasl = sasl;
        this.section = section;
    }

    /** Sets {@code config} to log in as {@code sasl} says, making the JAAS section of a DIGEST-MD5 login. */
    static SaslLogin configure(RegistrySasl sasl, ZKClientConfig config) {
        if (!sasl.isDigestMd5() && !SaslLogins.hasSection(sasl.loginContext())) {
            // ZooKeeper's client would go on without SASL, and the login would only time out unconfirmed.
            throw new InvalidRegistrySettingException(
                    "sasl.loginContext",
                    "The JVM's JAAS configuration has no section '" + sasl.loginContext() + "' (its file:"
                            + " java.security.auth.login.config="
                            + System.getProperty("java.security.auth.login.config")
                            + "): add the section, or name one it has");
        }
        String made = sasl.isDigestMd5() ? SaslLogins.addDigestMd5(sasl.username(), sasl.password()) : null;
        String section = made != null ? made : sasl.loginContext();
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "true");
        if (SaslLogins.logsInWithDigestMd5(section)) {
            // ZooKeeper's client refuses DIGEST-MD5, which FIPS 140 does not approve, unless FIPS mode is off: for
            // the section made here and for one of the application's own with ZooKeeper's DigestLoginModule alike.
            config.setProperty("zookeeper.fips-mode", "false");
        }
        config.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, section);
        if (sasl.serverPrincipal() != null) {
            config.setProperty(ZKClientConfig.ZOOKEEPER_SERVER_PRINCIPAL, sasl.serverPrincipal());
        }
        return new SaslLogin(sasl, made);
    }

    @Override
    public void eventReceived(CuratorFramework framework, CuratorEvent event) {
        if (event.getType() != CuratorEventType.WATCHED || event.getWatchedEvent() == null) {
            return;
        }
        Watcher.Event.KeeperState state = event.getWatchedEvent().getState();
        if (state == Watcher.Event.KeeperState.AuthFailed) {
            if (answered.getCount() == 0) {
                log.error("ZooKeeper refused the SASL login {}: requests will fail until it is accepted", sasl);
            }
            refused = true;
            answered.countDown();
        } else if (state == Watcher.Event.KeeperState.SaslAuthenticated) {
            authenticated = true;
            answered.countDown();
        }
    }

    /**
     * Waits up to {@code timeout} for ZooKeeper to confirm the login; what went wrong, if it did not. A login the client
     * could not even attempt (a mechanism its FIPS mode forbids, say) is never answered: unconfirmed is refused.
     */
    Optional<String> awaitProblem(Duration timeout) {
        try {
            answered.await(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        if (refused) {
            return Optional.of("refused this application's SASL login (" + sasl + ")");
        }
        return authenticated
                ? Optional.empty()
                : Optional.of("did not confirm this application's SASL login (" + sasl + ") within "
                        + timeout.toMillis() + " ms");
    }

    boolean refused() {
        return refused;
    }

    /** Forgets the JAAS section made for the login; the client is closed. */
    @Override
    public void close() {
        if (section != null) {
            SaslLogins.remove(section);
        }
    }
}
