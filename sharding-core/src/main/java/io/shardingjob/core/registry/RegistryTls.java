package io.shardingjob.core.registry;

import java.security.KeyStore;
import java.security.KeyStoreException;
import org.jspecify.annotations.Nullable;

/**
 * TLS to ZooKeeper's secure client port ({@code secureClientPort}, which ZooKeeper serves with Netty): the certificates
 * the client trusts and, for a server that asks for the client's certificate ({@code ssl.clientAuth}, {@code need} by
 * default), the client's own key and certificate. The client then connects through ZooKeeper's Netty socket.
 *
 * @param trustStore the certificates (or their authorities) the server's certificate must chain to
 * @param keyStore the client's key and certificate, or null when the server does not ask for one
 * @param keyPassword the password of the keys in {@code keyStore}, or null for none
 * @param verifyHostName whether the server's certificate must name the host connected to
 */
public record RegistryTls(
        KeyStore trustStore,
        @Nullable KeyStore keyStore,
        @Nullable String keyPassword,
        boolean verifyHostName) {

    public RegistryTls {
        if (trustStore == null) {
            throw new InvalidRegistrySettingException(
                    "tls", "TLS to ZooKeeper needs a trust store: the certificates the server's must chain to");
        }
    }

    /** Trusts the certificates of {@code trustStore}, verifies host names, and has no certificate of its own. */
    public static RegistryTls trusting(KeyStore trustStore) {
        return new RegistryTls(trustStore, null, null, true);
    }

    /** With the client's own key and certificate, for a server that asks for them. */
    public RegistryTls withKey(KeyStore keyStore, @Nullable String keyPassword) {
        return new RegistryTls(trustStore, keyStore, keyPassword, verifyHostName);
    }

    /** Without host name verification: for a server whose certificate does not name the host, as in development. */
    public RegistryTls withoutHostNameVerification() {
        return new RegistryTls(trustStore, keyStore, keyPassword, false);
    }

    /** Says what the stores hold, never the password. */
    @Override
    public String toString() {
        return "RegistryTls[trusting " + entries(trustStore) + ", own key: "
                + (keyStore == null ? "none" : entries(keyStore)) + ", host name verification "
                + (verifyHostName ? "on" : "off") + "]";
    }

    private static String entries(KeyStore store) {
        try {
            return store.size() + " entries";
        } catch (KeyStoreException notLoaded) {
            return "a store not loaded";
        }
    }
}
