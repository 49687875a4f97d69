package io.shardingjob.boot.actuate;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.drivers.AdvancedTracerDriver;
import org.apache.curator.drivers.EventTrace;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.drivers.TracerDriver;
import org.apache.curator.framework.CuratorFramework;

/**
 * Counts the requests this instance's Curator client sends to ZooKeeper, through Curator's tracer, as the benchmarks
 * count them (docs/performance.md): every operation of the framework and its recipes and every request of the fire
 * ledger, a multi-operation counting once, session pings not at all. The tracer the client had is still told of
 * everything, so that a user's own tracer keeps working.
 */
final class ZooKeeperRequests extends AdvancedTracerDriver {

    private final TracerDriver previous;

    private final LongAdder requests = new LongAdder();

    private ZooKeeperRequests(TracerDriver previous) {
        this.previous = previous;
    }

    /** Counts from now on what {@code client} sends; counting once, however often it is attached. */
    static synchronized ZooKeeperRequests attachTo(CuratorFramework client) {
        TracerDriver current = client.getZookeeperClient().getTracerDriver();
        if (current instanceof ZooKeeperRequests counting) {
            return counting;
        }
        ZooKeeperRequests counting = new ZooKeeperRequests(current);
        client.getZookeeperClient().setTracerDriver(counting);
        return counting;
    }

    /** The requests counted so far. */
    double count() {
        return requests.sum();
    }

    @Override
    public void addTrace(OperationTrace trace) {
        requests.increment();
        if (previous instanceof AdvancedTracerDriver advanced) {
            advanced.addTrace(trace);
        } else {
            previous.addTrace(trace.getName(), trace.getLatencyMs(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void addEvent(EventTrace trace) {
        if (previous instanceof AdvancedTracerDriver advanced) {
            advanced.addEvent(trace);
        } else {
            previous.addCount(trace.getName(), 1);
        }
    }
}
