package io.shardingjob.core.registry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.jspecify.annotations.Nullable;

/**
 * Key and trust stores written where ZooKeeper reads them. ZooKeeper builds TLS, its client's and its server's alike,
 * from store files named in its configuration, never from an {@code SSLContext}: the stores given in memory (a Spring
 * Boot SSL bundle's, say, possibly made from PEM files) are written to PKCS#12 files in a directory only this user may
 * read, each under a password made here at random and kept in a file beside it, so that no configuration and no system
 * property holds a password. ZooKeeper reads the files again on every connection; they are deleted on {@link #close()}.
 */
public final class TlsStoreFiles implements AutoCloseable {

    private static final String TYPE = "PKCS12";
    private final Path directory;
    private final Map<String, String> properties;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TlsStoreFiles(Path directory, Map<String, String> properties) {
        this.directory = directory;
        this.properties = properties;
    }

    /**
     * Writes the key and the trust store.
     *
     * @param keyStore the keys with their certificate chains (a server's, or a client's that a server asks for), or null
     * @param keyPassword the password of the keys in {@code keyStore}, or null for none
     * @param trustStore the certificates trusted, or null
     * @throws InvalidRegistrySettingException when a store holds nothing to use or cannot be read with the password
     *     given
     */
    public static TlsStoreFiles write(
            @Nullable KeyStore keyStore, @Nullable String keyPassword, @Nullable KeyStore trustStore) {
        Path directory = privateDirectory();
        try (ClientX509Util names = new ClientX509Util()) {
            Map<String, String> properties = new LinkedHashMap<>();
            // A store not given is named empty, so that none named by the JVM's system properties stands in for it.
            properties.put(names.getSslKeystoreLocationProperty(), "");
            properties.put(names.getSslTruststoreLocationProperty(), "");
            if (keyStore != null) {
                String password = randomPassword();
                properties.put(
                        names.getSslKeystoreLocationProperty(),
                        store(directory, "key", keys(keyStore, keyPassword, password), password));
                properties.put(
                        names.getSslKeystorePasswdPathProperty(),
                        passwordFile(directory, "key").toString());
                properties.put(names.getSslKeystoreTypeProperty(), TYPE);
            }
            if (trustStore != null) {
                String password = randomPassword();
                properties.put(
                        names.getSslTruststoreLocationProperty(),
                        store(directory, "trust", trustedCertificates(trustStore), password));
                properties.put(
                        names.getSslTruststorePasswdPathProperty(),
                        passwordFile(directory, "trust").toString());
                properties.put(names.getSslTruststoreTypeProperty(), TYPE);
            }
            return new TlsStoreFiles(directory, Map.copyOf(properties));
        } catch (RuntimeException ex) {
            delete(directory);
            throw ex;
        }
    }

    /**
     * The client side of TLS to ZooKeeper, as ZooKeeper's client takes it: its Netty socket, secure, reading these
     * stores.
     */
    static TlsStoreFiles forClient(RegistryTls tls, ZKClientConfig config) {
        TlsStoreFiles files = write(tls.keyStore(), tls.keyPassword(), tls.trustStore());
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        files.properties.forEach(config::setProperty);
        try (ClientX509Util names = new ClientX509Util()) {
            config.setProperty(
                    names.getSslHostnameVerificationEnabledProperty(), Boolean.toString(tls.verifyHostName()));
        }
        return files;
    }

    /**
     * ZooKeeper's properties ({@code zookeeper.ssl.keyStore.location} and the like, the same for its client and its
     * server) that read these stores: paths, never a password.
     */
    public Map<String, String> properties() {
        return properties;
    }

    /** Deletes the files; whatever reads them (a client, a server) must be closed first. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            delete(directory);
        }
    }

    /** Only the trusted certificates, whatever else the store holds. */
    private static KeyStore trustedCertificates(KeyStore from) {
        try {
            KeyStore copy = empty();
            for (String alias : Collections.list(from.aliases())) {
                Certificate certificate = from.getCertificate(alias);
                if (certificate != null) {
                    copy.setCertificateEntry(alias, certificate);
                }
            }
            if (copy.size() == 0) {
                throw new InvalidRegistrySettingException("tls", "The trust store for ZooKeeper holds no certificate");
            }
            return copy;
        } catch (GeneralSecurityException ex) {
            throw new InvalidRegistrySettingException("tls", "The trust store for ZooKeeper cannot be read: " + ex);
        }
    }

    /** The keys with their chains, under the new password: ZooKeeper reads each key with its store's password. */
    private static KeyStore keys(KeyStore from, @Nullable String password, String newPassword) {
        char[] keyPassword = password == null ? new char[0] : password.toCharArray();
        try {
            KeyStore copy = empty();
            for (String alias : Collections.list(from.aliases())) {
                if (from.isKeyEntry(alias)) {
                    Key key = from.getKey(alias, keyPassword);
                    copy.setKeyEntry(alias, key, newPassword.toCharArray(), from.getCertificateChain(alias));
                }
            }
            if (copy.size() == 0) {
                throw new InvalidRegistrySettingException("tls", "The key store for ZooKeeper holds no key");
            }
            return copy;
        } catch (GeneralSecurityException ex) {
            throw new InvalidRegistrySettingException(
                    "tls", "The key store for ZooKeeper cannot be read with the key password given: " + ex);
        }
    }

    private static KeyStore empty() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(TYPE);
        try {
            store.load(null, null);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return store;
    }

    /** Writes {@code name.p12} under {@code password}, and the password beside it; the store's path. */
    private static String store(Path directory, String name, KeyStore store, String password) {
        Path file = directory.resolve(name + ".p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
            Files.writeString(passwordFile(directory, name), password);
            return file.toString();
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not write " + file + " or its password", ex);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("Could not write " + file, ex);
        }
    }

    private static Path passwordFile(Path directory, String name) {
        return directory.resolve(name + ".password");
    }

    private static Path privateDirectory() {
        try {
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                return Files.createTempDirectory(
                        "sharding-zookeeper-tls",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            return Files.createTempDirectory("sharding-zookeeper-tls");
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not create a directory for ZooKeeper's TLS stores", ex);
        }
    }

    private static String randomPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            directory.toFile().deleteOnExit();
        }
    }
}
