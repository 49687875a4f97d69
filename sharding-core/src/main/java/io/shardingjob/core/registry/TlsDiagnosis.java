package io.shardingjob.core.registry;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Why a TLS connection to ZooKeeper failed, found by a handshake of its own with the same stores against the first
 * server of the connect string. ZooKeeper's client only retries, and logs the handshake's failure at each attempt: a
 * start-up that timed out says which of the usual causes it met instead of listing them all.
 */
final class TlsDiagnosis {

    private TlsDiagnosis() {}

    /**
     * @return what went wrong, or empty when the handshake succeeded here (the failure lies elsewhere) or the server
     *     could not be asked
     */
    static Optional<String> of(RegistryTls tls, String connectString, Duration timeout) {
        InetSocketAddress server = ConnectString.firstServer(connectString);
        if (server == null) {
            return Optional.empty();
        }
        String where = server.getHostString() + ":" + server.getPort();
        if (server.isUnresolved()) {
            return Optional.of("the host of " + where + " cannot be resolved");
        }
        int millis = Math.toIntExact(Math.max(500, Math.min(timeout.toMillis(), 5_000)));
        SSLContext context;
        try {
            context = context(tls);
        } catch (GeneralSecurityException ex) {
            return Optional.of("the bundle's stores cannot be used for TLS: " + ex.getMessage());
        }
        try (Socket plain = new Socket()) {
            plain.connect(server, millis);
            try (SSLSocket socket = (SSLSocket)
                    context.getSocketFactory().createSocket(plain, server.getHostString(), server.getPort(), false)) {
                socket.setSoTimeout(millis);
                if (tls.verifyHostName()) {
                    SSLParameters parameters = socket.getSSLParameters();
                    parameters.setEndpointIdentificationAlgorithm("HTTPS");
                    socket.setSSLParameters(parameters);
                }
                socket.startHandshake();
                // Under TLS 1.3 the server judges the client's certificate after the client's side of the handshake
                // ended: its refusal comes as the first thing read. A server that accepted waits for ZooKeeper's own
                // first request instead, and the read times out.
                InputStream in = socket.getInputStream();
                in.read();
                return Optional.of(where + " closed the connection after the TLS handshake: it may have refused this"
                        + " application's certificate");
            }
        } catch (ConnectException ex) {
            return Optional.of("nothing accepts connections at " + where);
        } catch (SocketTimeoutException accepted) {
            return Optional.empty();
        } catch (SSLHandshakeException ex) {
            return Optional.of(handshakeFailure(where, ex, tls));
        } catch (SSLException ex) {
            return Optional.of(refusedAfterHandshake(where, ex, tls));
        } catch (IOException ex) {
            return Optional.of(where + " ended the TLS handshake (" + ex.getMessage() + "): is it the server's"
                    + " secureClientPort, and not its plaintext clientPort?");
        }
    }

    private static String handshakeFailure(String where, SSLHandshakeException failure, RegistryTls tls) {
        if (causedBy(failure, CertPathValidatorException.class)
                || String.valueOf(failure.getMessage()).contains("PKIX")) {
            return "the certificate of " + where + " does not chain to the bundle's trust store: add the server's"
                    + " certificate or its authority to it";
        }
        if (causedBy(failure, CertificateException.class) && tls.verifyHostName()) {
            return "the certificate of " + where + " does not name the host connected to (" + failure.getMessage()
                    + "): connect by a name it holds, or give the server a certificate that names it"
                    + " (sharding.zookeeper.ssl.verify-host-name=false, for development only)";
        }
        return refusedAfterHandshake(where, failure, tls);
    }

    private static String refusedAfterHandshake(String where, SSLException failure, RegistryTls tls) {
        String message = String.valueOf(failure.getMessage());
        if (message.contains("certificate_required")
                || message.contains("bad_certificate")
                || message.contains("certificate_unknown")) {
            return where + " refused this application's certificate (" + message + "): "
                    + (tls.keyStore() == null
                            ? "the server asks for one, and the bundle has no key store"
                            : "the server's trust store must trust the bundle's key's certificate");
        }
        if (message.contains("Unsupported or unrecognized SSL message")
                || message.contains("terminated the handshake")) {
            return where + " does not answer in TLS (" + message + "): is it the server's secureClientPort, and not"
                    + " its plaintext clientPort?";
        }
        return "the TLS handshake with " + where + " failed: " + message;
    }

    private static SSLContext context(RegistryTls tls) throws GeneralSecurityException {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(tls.trustStore());
        KeyManager[] keys = null;
        if (tls.keyStore() != null) {
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(
                    tls.keyStore(),
                    tls.keyPassword() == null ? new char[0] : tls.keyPassword().toCharArray());
            keys = factory.getKeyManagers();
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys, trust.getTrustManagers(), null);
        return context;
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        return Stream.iterate(failure, Objects::nonNull, Throwable::getCause).anyMatch(type::isInstance);
    }
}
