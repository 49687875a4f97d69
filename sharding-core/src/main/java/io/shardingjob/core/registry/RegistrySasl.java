package io.shardingjob.core.registry;

import org.jspecify.annotations.Nullable;

/**
 * SASL authentication to ZooKeeper: DIGEST-MD5 with a user name and password ({@link #digestMd5}), or any mechanism a
 * section of the JVM's JAAS configuration sets up, such as Kerberos ({@link #loginContext}). The session is then
 * known by that identity, and the nodes the jobs create carry an ACL for it only.
 *
 * @param loginContext the JAAS section to log in with; for {@link #digestMd5}, one this library makes
 * @param username the DIGEST-MD5 user, or null with a JAAS section of the application's own
 * @param password the DIGEST-MD5 password, or null with a JAAS section of the application's own
 * @param serverPrincipal the server's principal ({@code zookeeper/host@REALM}) for Kerberos, or null for ZooKeeper's
 *     default ({@code zookeeper/<host>})
 */
public record RegistrySasl(
        String loginContext,
        @Nullable String username,
        @Nullable String password,
        @Nullable String serverPrincipal) {

    /** The JAAS section name {@link #digestMd5} stands for: the library makes the section itself. */
    static final String DIGEST_MD5 = "(DIGEST-MD5)";

    public RegistrySasl {
        if (loginContext == null || loginContext.isBlank()) {
            throw new InvalidRegistrySettingException(
                    "sasl", "SASL needs a JAAS login context, or a user and password");
        }
        if (loginContext.equals(DIGEST_MD5)
                && (username == null || username.isBlank() || password == null || password.isEmpty())) {
            throw new InvalidRegistrySettingException("sasl", "SASL DIGEST-MD5 needs a user name and a password");
        }
    }

    /** DIGEST-MD5 as the user {@code username}; the server must know it (a {@code user_<name>} of its JAAS section). */
    public static RegistrySasl digestMd5(String username, String password) {
        return new RegistrySasl(DIGEST_MD5, username, password, null);
    }

    /** The mechanism a section of the JVM's JAAS configuration ({@code java.security.auth.login.config}) sets up. */
    public static RegistrySasl loginContext(String section) {
        return new RegistrySasl(section, null, null, null);
    }

    /** With the server's Kerberos principal. */
    public RegistrySasl withServerPrincipal(String principal) {
        return new RegistrySasl(loginContext, username, password, principal);
    }

    boolean isDigestMd5() {
        return loginContext.equals(DIGEST_MD5);
    }

    /** Names the mechanism and the user, never the password. */
    @Override
    public String toString() {
        return isDigestMd5()
                ? "RegistrySasl[DIGEST-MD5 as " + username + "]"
                : "RegistrySasl[JAAS section " + loginContext + "]";
    }
}
