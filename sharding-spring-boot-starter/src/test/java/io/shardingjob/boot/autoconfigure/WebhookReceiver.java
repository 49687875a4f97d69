package io.shardingjob.boot.autoconfigure;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real HTTP receiver of alerts on loopback (the JDK's server on a free port): it keeps each request's JSON body and
 * answers 204, or, while held, answers nothing until released, as a receiver that hangs.
 */
final class WebhookReceiver implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpServer server;

    private final BlockingQueue<JsonNode> requests = new LinkedBlockingQueue<>();

    private final CountDownLatch held;

    private WebhookReceiver(boolean hang) throws IOException {
        this.held = new CountDownLatch(hang ? 1 : 0);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/alerts", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                requests.add(JSON.readTree(new String(body.readAllBytes(), StandardCharsets.UTF_8)));
                held.await(1, TimeUnit.MINUTES);
                exchange.sendResponseHeaders(204, -1);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    /** A receiver that answers at once. */
    static WebhookReceiver start() throws IOException {
        return new WebhookReceiver(false);
    }

    /** A receiver that takes requests but answers none until closed. */
    static WebhookReceiver hanging() throws IOException {
        return new WebhookReceiver(true);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/alerts");
    }

    /** The next request's body, waiting for it at most {@code within}; null when none came. */
    JsonNode next(Duration within) throws InterruptedException {
        return requests.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The bodies received so far and not taken yet. */
    List<JsonNode> received() {
        return new ArrayList<>(requests);
    }

    @Override
    public void close() {
        held.countDown();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
