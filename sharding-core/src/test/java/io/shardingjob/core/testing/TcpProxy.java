package io.shardingjob.core.testing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A loopback TCP proxy in front of the test ZooKeeper, so that one instance's network can be cut while its process
 * lives on: its session then expires on the server after the session timeout, exactly as a partition or a kill -9
 * looks to ZooKeeper, while the instance itself only sees a lost connection. It can also be frozen: connections stay
 * open but nothing passes, as with a server or a network that stalls, so requests wait for answers that do not come.
 * Or it can pass pings only: the client's pings and their answers go through, every other packet is held, as a
 * follower cut off from its leader behaves (it answers its clients' pings by itself, while no request reaches the
 * leader); the client then sees a healthy connection and nothing else answered. Or it can delay what the server sends
 * back (answers and watch events) by a fixed time, as a link to a server a zone or a region away does: a latency, not a
 * bandwidth cap, so that packets read in the same instant arrive together, in order, one delay later.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final int targetPort;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile boolean cut;

    /** Connections refused while cut: each is a reconnection attempt that failed, and failed what waited for it. */
    private final AtomicLong refused = new AtomicLong();

    private final Object thawed = new Object();

    private boolean frozen;

    /** Whether it reads ZooKeeper's client packets (to pass pings only), rather than copying bytes as they come. */
    private final boolean clientProtocol;

    /** Whether only pings and their answers pass; the rest is held, in order, until this ends. */
    private volatile boolean pingsOnly;

    /** The packets held while passing pings only, to look into: the order of each connection's is kept by its pump. */
    private final Queue<byte[]> heldPackets = new ConcurrentLinkedQueue<>();

    /** Bytes that arrived while frozen: requests waiting for the thaw. */
    private final AtomicLong heldBytes = new AtomicLong();

    /** How long what the server sends back waits before it goes on to the client; zero passes it at once. */
    private final long answerDelayNanos;

    /** Told of each packet after a connection's first, once passed, on its pump's thread; true: it went to the server. */
    private volatile BiConsumer<Boolean, byte[]> observer = (toServer, packet) -> {};

    /** A proxy of a ZooKeeper client port: it can also {@link #passPingsOnly()}. */
    public TcpProxy(int targetPort) throws IOException {
        this(targetPort, true, Duration.ZERO);
    }

    /** A proxy of any TCP port (a ZooKeeper server's quorum or election port, say): it copies bytes as they come. */
    public static TcpProxy ofBytes(int targetPort) throws IOException {
        return new TcpProxy(targetPort, false, Duration.ZERO);
    }

    /**
     * A proxy of a ZooKeeper client port whose answers and watch events reach the client {@code delay} after the server
     * sent them: each round trip in sequence costs the delay once more.
     */
    public static TcpProxy delayingAnswers(int targetPort, Duration delay) throws IOException {
        return new TcpProxy(targetPort, true, delay);
    }

    private TcpProxy(int targetPort, boolean clientProtocol, Duration answerDelay) throws IOException {
        this.targetPort = targetPort;
        this.clientProtocol = clientProtocol;
        this.answerDelayNanos = answerDelay.toNanos();
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

    /** Passes the client's pings and their answers only, and holds every other packet until {@link #passAll()}. */
    public void passPingsOnly() {
        if (!clientProtocol) {
            throw new IllegalStateException("a proxy of bytes cannot tell a ping");
        }
        pingsOnly = true;
    }

    /** Ends {@link #passPingsOnly()}: the held packets pass, in order, with the next ones. */
    public void passAll() {
        pingsOnly = false;
    }

    /**
     * Whether a packet held while passing pings only names {@code text} (a znode path, say): the request that writes it
     * was sent and waits.
     */
    public boolean holdsPacketNaming(String text) {
        byte[] wanted = text.getBytes(StandardCharsets.UTF_8);
        return heldPackets.stream().anyMatch(packet -> indexOf(packet, wanted) >= 0);
    }

    private static int indexOf(byte[] packet, byte[] wanted) {
        outer:
        for (int at = 0; at <= packet.length - wanted.length; at++) {
            for (int i = 0; i < wanted.length; i++) {
                if (packet[at + i] != wanted[i]) {
                    continue outer;
                }
            }
            return at;
        }
        return -1;
    }

    public void observe(BiConsumer<Boolean, byte[]> observer) {
        this.observer = observer;
    }

    /** How many connections it refused while cut, since it was made. */
    public long refusedConnections() {
        return refused.get();
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
                    refused.incrementAndGet();
                    closeQuietly(inbound);
                    continue;
                }
                Socket outbound = new Socket();
                try {
                    outbound.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2000);
                } catch (IOException targetDown) {
                    // The server is down (an ensemble's member stopped): the client sees the connection drop at once
                    // and tries its next server, rather than waiting out its connect timeout on an open socket.
                    closeQuietly(outbound);
                    closeQuietly(inbound);
                    continue;
                }
                // As ZooKeeper's client and server do: a packet goes out as a length and a body, two small writes, and
                // with Nagle's algorithm the body waits for the length's delayed acknowledgement (40 ms on Linux).
                inbound.setTcpNoDelay(true);
                outbound.setTcpNoDelay(true);
                sockets.add(inbound);
                sockets.add(outbound);
                pump(inbound, outbound, true);
                pump(outbound, inbound, false);
            } catch (IOException ex) {
                // Closed while accepting, or the target refused: the client will retry.
            }
        }
    }

    /**
     * Copies ZooKeeper's packets one way, each as it came: a 4-byte length, then the packet, whose first field (after
     * the connect request and its answer) is the xid, {@code -2} for a ping and its answer.
     */
    private void pump(Socket from, Socket to, boolean toServer) {
        if (!clientProtocol) {
            pumpBytes(from, to);
            return;
        }
        Thread thread = new Thread(
                () -> {
                    List<byte[]> held = new ArrayList<>();
                    boolean connected = false;
                    ProxyOutlet outlet = null;
                    try (DataInputStream in = new DataInputStream(from.getInputStream());
                            DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
                        Consumer<byte[]> passed = packet -> observer.accept(toServer, packet);
                        outlet = toServer || answerDelayNanos == 0
                                ? new ProxyOutlet(out, 0, passed, () -> cut, () -> {})
                                : new ProxyOutlet(out, answerDelayNanos, passed, () -> cut, () -> {
                                    closeQuietly(from);
                                    closeQuietly(to);
                                });
                        while (!cut) {
                            int length = in.readInt();
                            byte[] packet = new byte[length];
                            in.readFully(packet);
                            holdWhileFrozen(length + 4);
                            boolean first = !connected;
                            boolean ping = connected && length >= 4 && xid(packet) == -2;
                            connected = true;
                            if (pingsOnly && !ping) {
                                held.add(packet);
                                heldPackets.add(packet);
                                continue;
                            }
                            if (!pingsOnly) {
                                for (byte[] waiting : held) {
                                    outlet.pass(waiting, false, false);
                                    heldPackets.remove(waiting);
                                }
                                held.clear();
                            }
                            outlet.pass(packet, true, !first);
                        }
                    } catch (EOFException ex) {
                        // Closed by its end.
                    } catch (IOException ex) {
                        // Connection dropped.
                    } finally {
                        if (outlet != null) {
                            outlet.close();
                        }
                        // Dropped with the connection: the client's requests among them are answered by a loss.
                        held.forEach(heldPackets::remove);
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private void pumpBytes(Socket from, Socket to) {
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[8192];
                    try (var in = from.getInputStream();
                            var out = to.getOutputStream()) {
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

    /** The port it listens on. */
    public int port() {
        return server.getLocalPort();
    }

    private static int xid(byte[] packet) {
        return ((packet[0] & 0xff) << 24) | ((packet[1] & 0xff) << 16) | ((packet[2] & 0xff) << 8) | (packet[3] & 0xff);
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
