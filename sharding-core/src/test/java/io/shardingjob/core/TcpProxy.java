package io.shardingjob.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of the test ZooKeeper, so that one instance's network can be cut while its process
 * lives on: its session then expires on the server after the session timeout, exactly as a partition or a kill -9
 * looks to ZooKeeper, while the instance itself only sees a lost connection. It can also be frozen: connections stay
 * open but nothing passes, as with a server or a network that stalls, so requests wait for answers that do not come.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final int targetPort;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile boolean cut;

    private final Object thawed = new Object();

    private boolean frozen;

    /** Bytes that arrived while frozen: requests waiting for the thaw. */
    private final AtomicLong heldBytes = new AtomicLong();

    public TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String connectString() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        synchronized (thawed) {
            thawed.notifyAll();
        }
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
    }

    public void restore() {
        cut = false;
    }

    /** Holds every byte in both directions until {@link #thaw()}, keeping the connections open. */
    public void freeze() {
        synchronized (thawed) {
            heldBytes.set(0);
            frozen = true;
        }
    }

    public void thaw() {
        synchronized (thawed) {
            frozen = false;
            thawed.notifyAll();
        }
    }

    /** Bytes that arrived since the last {@link #freeze()} and wait for the thaw. */
    public long heldBytes() {
        return heldBytes.get();
    }

    @Override
    public void close() {
        cut();
        closeQuietly(server);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket inbound = server.accept();
                if (cut) {
                    closeQuietly(inbound);
                    continue;
                }
                Socket outbound = new Socket();
                outbound.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                sockets.add(inbound);
                sockets.add(outbound);
                pump(inbound, outbound);
                pump(outbound, inbound);
            } catch (IOException ex) {
                // Closed while accepting, or the target refused: the client will retry.
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[8192];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int read;
                        while (!cut && (read = in.read(buffer)) >= 0) {
                            holdWhileFrozen(read);
                            out.write(buffer, 0, read);
                            out.flush();
                        }
                    } catch (IOException ex) {
                        // Connection dropped.
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void holdWhileFrozen(int bytes) {
        synchronized (thawed) {
            if (frozen) {
                heldBytes.addAndGet(bytes);
            }
            while (frozen && !cut) {
                try {
                    thawed.wait();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Already closed.
        }
    }
}
