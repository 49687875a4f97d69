package io.shardingjob.core.registry;

import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * The JAAS sections of DIGEST-MD5 logins to ZooKeeper. ZooKeeper's client logs in through a named section of the JVM's
 * JAAS configuration, which is global: this adds sections of its own to it, one per registry, each under a name no one
 * else uses, and answers every other name as the configuration it found did (a {@code java.security.auth.login.config}
 * file, a ZooKeeper server's {@code Server} section in the same JVM). The password stays in memory, in the section.
 * An application that replaces the JVM's JAAS configuration after a registry started must carry these sections over.
 */
final class SaslLogins {

    private static final String DIGEST_LOGIN_MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule";
    private static final Map<String, AppConfigurationEntry[]> SECTIONS = new ConcurrentHashMap<>();
    private static boolean installed;

    private SaslLogins() {}

    /** Adds a section that logs in as {@code username}; returns its name. */
    static String addDigestMd5(String username, String password) {
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

    /** Whether the JVM's JAAS configuration, as it reads now, has a section of that name. */
    static boolean hasSection(String name) {
        Configuration configuration = current();
        return configuration != null && configuration.getAppConfigurationEntry(name) != null;
    }

    /**
     * Whether the section logs in with ZooKeeper's DigestLoginModule, which makes ZooKeeper's client use DIGEST-MD5
     * (any other module, Kerberos's say, gives it credentials of another mechanism).
     */
    static boolean logsInWithDigestMd5(String name) {
        Configuration configuration = current();
        AppConfigurationEntry[] entries = configuration == null ? null : configuration.getAppConfigurationEntry(name);
        return entries != null
                && Arrays.stream(entries)
                        .anyMatch(entry -> entry.getLoginModuleName().equals(DIGEST_LOGIN_MODULE));
    }

    /** Forgets a section once its registry closed. */
    static void remove(String name) {
        SECTIONS.remove(name);
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
