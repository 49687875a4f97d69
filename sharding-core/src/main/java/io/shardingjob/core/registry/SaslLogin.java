package io.shardingjob.core.registry;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
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
 *
 * <p>ZooKeeper's client logs in through a named section of the JVM's JAAS configuration, which is global: the sections
 * of DIGEST-MD5 logins are added to it, one per registry, each under a name no one else uses, and every other name is
 * answered as the configuration found did (a {@code java.security.auth.login.config} file, a ZooKeeper server's {@code
 * Server} section in the same JVM). The password stays in memory, in the section. An application that replaces the
 * JVM's JAAS configuration after a registry started must carry these sections over.
 */
final class SaslLogin implements CuratorListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SaslLogin.class);
    private static final String DIGEST_LOGIN_MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule";
    private static final Map<String, AppConfigurationEntry[]> SECTIONS = new ConcurrentHashMap<>();
    private static boolean installed;

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
        if (!sasl.isDigestMd5() && jaasSection(sasl.loginContext()) == null) {
            // ZooKeeper's client would go on without SASL, and the login would only time out unconfirmed.
            throw new InvalidRegistrySettingException(
                    "sasl.loginContext",
                    "The JVM's JAAS configuration has no section '" + sasl.loginContext() + "' (its file:"
                            + " java.security.auth.login.config="
                            + System.getProperty("java.security.auth.login.config")
                            + "): add the section, or name one it has");
        }
        String made = sasl.isDigestMd5() ? addDigestMd5(sasl.username(), sasl.password()) : null;
        String loginContext = made != null ? made : sasl.loginContext();
        config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "true");
        AppConfigurationEntry[] entries = jaasSection(loginContext);
        if (entries != null
                && Arrays.stream(entries)
                        .anyMatch(entry -> entry.getLoginModuleName().equals(DIGEST_LOGIN_MODULE))) {
            // ZooKeeper's DigestLoginModule makes its client use DIGEST-MD5 (another module, Kerberos's say, gives it
            // credentials of another mechanism), which it refuses unless FIPS mode is off, since FIPS 140 does not
            // approve it: for the section made here and for one of the application's own alike.
            config.setProperty("zookeeper.fips-mode", "false");
        }
        config.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, loginContext);
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
            SECTIONS.remove(section);
        }
    }

    /** Adds a section that logs in as {@code username}; returns its name. */
    private static String addDigestMd5(String username, String password) {
        install();
        String name = "sharding-zookeeper-" + UUID.randomUUID();
        SECTIONS.put(name, new AppConfigurationEntry[] {
            new AppConfigurationEntry(
                    DIGEST_LOGIN_MODULE,
                    AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
                    Map.of("username", username, "password", password))
        });
        return name;
    }

    /** The section of that name in the JVM's JAAS configuration, as it reads now; null when it has none. */
    private static AppConfigurationEntry @Nullable [] jaasSection(String name) {
        Configuration configuration = current();
        return configuration == null ? null : configuration.getAppConfigurationEntry(name);
    }

    private static synchronized void install() {
        if (installed) {
            return;
        }
        Configuration found = current();
        Configuration.setConfiguration(new Configuration() {
            @Override
            public AppConfigurationEntry @Nullable [] getAppConfigurationEntry(String name) {
                AppConfigurationEntry[] ours = SECTIONS.get(name);
                if (ours != null) {
                    return ours;
                }
                return found == null ? null : found.getAppConfigurationEntry(name);
            }

            @Override
            public void refresh() {
                if (found != null) {
                    found.refresh();
                }
            }
        });
        installed = true;
    }

    /** The JVM's JAAS configuration as it is now; null when there is none to read (no file, or one that is broken). */
    private static @Nullable Configuration current() {
        try {
            return Configuration.getConfiguration();
        } catch (SecurityException none) {
            return null;
        }
    }
}
