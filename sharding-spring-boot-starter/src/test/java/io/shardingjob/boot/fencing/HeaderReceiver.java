package io.shardingjob.boot.fencing;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP service on loopback (the JDK's server on a free port) that keeps each request's headers and answers 204,
 * or, when told to refuse, 409 with the refusal header naming a higher token, as a fenced service does.
 */
final class HeaderReceiver implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final BlockingQueue<Headers> requests = new LinkedBlockingQueue<>();
    private volatile Long refuseWithHighest;

    HeaderReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                requests.add(exchange.getRequestHeaders());
                Long highest = refuseWithHighest;
                if (highest == null) {
                    exchange.sendResponseHeaders(204, -1);
                } else {
                    exchange.getResponseHeaders().set(FencingHeaders.FENCED_OUT, highest.toString());
                    exchange.sendResponseHeaders(409, -1);
                }
            }
        });
        server.start();
    }

    /** From now on, refuse every request as a fenced service refuses a zombie's. */
    void refuseWithHighest(long highest) {
        refuseWithHighest = highest;
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/settlements/east");
    }

    /** The next request's headers, waiting at most {@code within}; null when none came. */
    Headers next(Duration within) throws InterruptedException {
        return requests.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
