package io.shardingjob.core.testing;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Where one direction of a {@link TcpProxy} connection writes ZooKeeper's packets: at once, or after a delay on a
 * thread of its own, so that the proxy's pump goes on reading while earlier packets wait (each packet is due its read
 * time plus the delay, and they leave in the order read): a latency, not a bandwidth cap.
 */
final class ProxyOutlet {

    private record Due(long dueNanos, byte[] packet, boolean flush, boolean observed) {}

    private static final Due END = new Due(0, new byte[0], false, false);

    private final DataOutputStream out;

    private final long delayNanos;

    /** Told of each observed packet once it passed. */
    private final Consumer<byte[]> passed;

    private final BooleanSupplier cut;

    private final BlockingQueue<Due> waiting = new LinkedBlockingQueue<>();

    /** @param onFailure what a delayed write that failed does: close the connection */
    ProxyOutlet(
            DataOutputStream out, long delayNanos, Consumer<byte[]> passed, BooleanSupplier cut, Runnable onFailure) {
        this.out = out;
        this.delayNanos = delayNanos;
        this.passed = passed;
        this.cut = cut;
        if (delayNanos > 0) {
            Thread delivery = new Thread(() -> deliver(onFailure), "tcp-proxy-delivery");
            delivery.setDaemon(true);
            delivery.start();
        }
    }

    void pass(byte[] packet, boolean flush, boolean observed) throws IOException {
        if (delayNanos == 0) {
            write(packet, flush, observed);
        } else {
            waiting.add(new Due(System.nanoTime() + delayNanos, packet, flush, observed));
        }
    }

    /** The connection's pump ended: the delivery thread ends once what waits before this is written. */
    void close() {
        waiting.add(END);
    }

    private void deliver(Runnable onFailure) {
        try {
            for (Due due = waiting.take(); due != END && !cut.getAsBoolean(); due = waiting.take()) {
                long wait = due.dueNanos() - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                // Flushed when nothing else is due yet: packets read together leave together.
                write(due.packet(), due.flush() && nothingDue(), due.observed());
            }
        } catch (IOException | InterruptedException ex) {
            onFailure.run();
        }
    }

    private boolean nothingDue() {
        Due next = waiting.peek();
        return next == null || next.dueNanos() > System.nanoTime();
    }

    private void write(byte[] packet, boolean flush, boolean observed) throws IOException {
        out.writeInt(packet.length);
        out.write(packet);
        if (flush) {
            out.flush();
        }
        if (observed) {
            passed.accept(packet);
        }
    }
}
