package io.shardingjob.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Key material made at test time with the JDK's {@code keytool}, valid for two days from now: three key pairs (the
 * ZooKeeper server's, a client's and a stranger's), each self-signed for {@code localhost} and {@code 127.0.0.1}, and
 * trust stores of them: the server trusts the client, the client trusts the server, and the stranger's trust store
 * trusts only the stranger. Every store is PKCS#12 under {@link #PASSWORD}.
 *
 * @param directory where the stores are
 */
public record TestCertificates(Path directory) {

    /** The password of every store and key: test material only. */
    public static final String PASSWORD = "test-only-password";

    /** Makes the stores in a fresh directory. */
    public static TestCertificates make(Path directory) {
        try {
            Files.createDirectories(directory);
            try (var old = Files.list(directory)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        TestCertificates made = new TestCertificates(directory);
        for (String name : List.of("server", "client", "stranger")) {
            made.keytool(
                    "-genkeypair",
                    "-alias",
                    name,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=localhost, O=" + name,
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-validity",
                    "2",
                    "-keystore",
                    made.keys(name).toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    PASSWORD,
                    "-keypass",
                    PASSWORD);
            made.keytool(
                    "-exportcert",
                    "-alias",
                    name,
                    "-keystore",
                    made.keys(name).toString(),
                    "-storepass",
                    PASSWORD,
                    "-file",
                    directory.resolve(name + ".crt").toString());
        }
        made.trust("server", "client");
        made.trust("client", "server");
        made.trust("stranger", "stranger");
        return made;
    }

    /** The key store of {@code name}: {@code server}, {@code client} or {@code stranger}. */
    public Path keys(String name) {
        return directory.resolve(name + "-keys.p12");
    }

    /** What {@code name} trusts: the server trusts the client, the client the server, the stranger itself. */
    public Path trust(String name) {
        return directory.resolve(name + "-trust.p12");
    }

    /**
     * The properties of a Spring Boot JKS SSL bundle ({@code spring.ssl.bundle.jks.<bundle>.*}) of these stores.
     *
     * @param keys the store whose keys the bundle holds, such as {@code keys("client")}, or null for none
     * @param trust the store of certificates the bundle trusts, or null for none
     */
    public static String[] bundleProperties(String bundle, @Nullable Path keys, @Nullable Path trust) {
        String prefix = "spring.ssl.bundle.jks." + bundle + ".";
        List<String> properties = new ArrayList<>();
        if (keys != null) {
            properties.addAll(store(prefix + "keystore.", keys));
        }
        if (trust != null) {
            properties.addAll(store(prefix + "truststore.", trust));
        }
        return properties.toArray(String[]::new);
    }

    private static List<String> store(String prefix, Path file) {
        return List.of(prefix + "location=file:" + file, prefix + "password=" + PASSWORD, prefix + "type=PKCS12");
    }

    /** A store, loaded. */
    public static KeyStore load(Path store) {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore loaded = KeyStore.getInstance("PKCS12");
            loaded.load(in, PASSWORD.toCharArray());
            return loaded;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private void trust(String truster, String trusted) {
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                trusted,
                "-file",
                directory.resolve(trusted + ".crt").toString(),
                "-keystore",
                trust(truster).toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD);
    }

    private void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("keytool.log").toFile())
                    .start();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(
                        "keytool failed: " + command + ", see " + directory.resolve("keytool.log"));
            }
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
