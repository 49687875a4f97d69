package io.shardingjob.test;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * One ZooKeeper server of a {@link ShardingCluster}: the only one, or a member of its ensemble. A test stops it and
 * restarts it, as a server's crash and return: its clients (every instance, each through a proxy of its own to each
 * server) move to another member, and the ensemble goes on while a majority of it runs.
 */
public final class ZooKeeperServer {

    private final int index;

    private final InstanceSpec spec;

    private final Control control;

    private volatile boolean running = true;

    /** How the server is stopped and started again: a {@link TestingServer}'s own, or its ensemble's. */
    private interface Control {
        void stop() throws Exception;

        void restart() throws Exception;
    }

    private ZooKeeperServer(int index, InstanceSpec spec, Control control) {
        this.index = index;
        this.spec = spec;
        this.control = control;
    }

    static ZooKeeperServer alone(TestingServer server, InstanceSpec spec) {
        return new ZooKeeperServer(0, spec, new Control() {
            @Override
            public void stop() throws Exception {
                server.stop();
            }

            @Override
            public void restart() throws Exception {
                server.restart();
            }
        });
    }

    static ZooKeeperServer member(int index, TestingCluster ensemble, InstanceSpec spec) {
        return new ZooKeeperServer(index, spec, new Control() {
            @Override
            public void stop() throws Exception {
                ensemble.killServer(spec);
            }

            @Override
            public void restart() throws Exception {
                ensemble.restartServer(spec);
            }
        });
    }

    /** Its place in the cluster's list of servers, from 0. */
    public int index() {
        return index;
    }

    /** The port it takes clients on; the instances reach it through proxies of their own. */
    public int port() {
        return spec.getPort();
    }

    public boolean isRunning() {
        return running;
    }

    /** Stops the server at once, its clients' connections dropped, as a crash would. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        try {
            control.stop();
            running = false;
        } catch (Exception ex) {
            throw new IllegalStateException("Could not stop ZooKeeper server " + index, ex);
        }
    }

    /** Starts the stopped server again, on its port: it rejoins its ensemble. */
    public synchronized void restart() {
        if (running) {
            return;
        }
        try {
            control.restart();
            running = true;
        } catch (Exception ex) {
            throw new IllegalStateException("Could not restart ZooKeeper server " + index, ex);
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper server " + index + " on port " + port() + (running ? "" : " (stopped)");
    }
}
