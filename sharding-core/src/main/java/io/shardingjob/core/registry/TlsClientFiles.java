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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.jspecify.annotations.Nullable;

/**
 * The client side of TLS to ZooKeeper, as ZooKeeper's client takes it: its Netty socket, and key and trust stores read
 * from files on every connection. The stores given in memory (a Spring Boot SSL bundle's, say, possibly made from PEM
 * files) are written once to PKCS#12 files in a directory only this user may read, each under a password made here at
 * random, which never leaves this process; they are deleted on {@link #close()}. ZooKeeper offers no way to hand its
 * client an {@code SSLContext}: its Netty client builds one from these files.
 */
final class TlsClientFiles implements AutoCloseable {

    private static final String TYPE = "PKCS12";

    private final Path directory;

    private final ZKClientConfig clientConfig;

    private final AtomicBoolean closed = new AtomicBoolean();

    private TlsClientFiles(Path directory, ZKClientConfig clientConfig) {
        this.directory = directory;
        this.clientConfig = clientConfig;
    }

    /**
     * Writes the stores of {@code tls}, and sets {@code config} to read them.
     *
     * @throws InvalidRegistrySettingException when a store holds nothing to use or cannot be read with the password
     *     given
     */
    static TlsClientFiles write(RegistryTls tls, ZKClientConfig config) {
        Path directory = privateDirectory();
        try {
            config.setProperty(
                    ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            try (ClientX509Util names = new ClientX509Util()) {
                String trustPassword = randomPassword();
                Path trust =
                        store(directory.resolve("trust.p12"), trustedCertificates(tls.trustStore()), trustPassword);
                config.setProperty(names.getSslTruststoreLocationProperty(), trust.toString());
                config.setProperty(names.getSslTruststorePasswdProperty(), trustPassword);
                config.setProperty(names.getSslTruststoreTypeProperty(), TYPE);
                if (tls.keyStore() != null) {
                    String keyPassword = randomPassword();
                    Path key = store(
                            directory.resolve("key.p12"),
                            keys(tls.keyStore(), tls.keyPassword(), keyPassword),
                            keyPassword);
                    config.setProperty(names.getSslKeystoreLocationProperty(), key.toString());
                    config.setProperty(names.getSslKeystorePasswdProperty(), keyPassword);
                    config.setProperty(names.getSslKeystoreTypeProperty(), TYPE);
                }
                config.setProperty(
                        names.getSslHostnameVerificationEnabledProperty(), Boolean.toString(tls.verifyHostName()));
            }
            return new TlsClientFiles(directory, config);
        } catch (RuntimeException ex) {
            delete(directory);
            throw ex;
        }
    }

    /** The client configuration to build the ZooKeeper client with. */
    ZKClientConfig clientConfig() {
        return clientConfig;
    }

    /** Deletes the files; the client must be closed first, since it reads them again on every connection. */
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

    private static Path store(Path file, KeyStore store, String password) {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
            return file;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not write " + file, ex);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("Could not write " + file, ex);
        }
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
