package io.shardingjob.test;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * The ZooKeeper of a {@link ShardingCluster}, in the test's process: one server, or an ensemble of a few. Every server
 * ticks every 100 ms, so that sessions may be as short as 200 ms.
 */
final class ZooKeeperServers implements AutoCloseable {

    /** A tick of 100 ms: the shortest session a server grants is two ticks, the longest twenty. */
    private static final int TICK_MILLIS = 100;

    private final Closeable owner;

    private final String connectString;

    private final List<ZooKeeperServer> servers;

    private ZooKeeperServers(Closeable owner, String connectString, List<ZooKeeperServer> servers) {
        this.owner = owner;
        this.connectString = connectString;
        this.servers = List.copyOf(servers);
    }

    static ZooKeeperServers start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("A ZooKeeper needs at least one server, not " + size);
        }
        try {
            return size == 1 ? alone() : ensemble(size);
        } catch (Exception ex) {
            throw new IllegalStateException("Could not start the test's ZooKeeper of " + size + " servers", ex);
        }
    }

    private static ZooKeeperServers alone() throws Exception {
        InstanceSpec spec = spec(-1);
        TestingServer server = new TestingServer(spec, true);
        return new ZooKeeperServers(server, server.getConnectString(), List.of(ZooKeeperServer.alone(server, spec)));
    }

    private static ZooKeeperServers ensemble(int size) throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            specs.add(spec(id));
        }
        TestingCluster ensemble = new TestingCluster(specs);
        List<ZooKeeperServer> servers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            servers.add(ZooKeeperServer.member(i, ensemble, specs.get(i)));
        }
        try {
            ensemble.start();
        } catch (Exception ex) {
            ensemble.close();
            throw ex;
        }
        return new ZooKeeperServers(ensemble, ensemble.getConnectString(), servers);
    }

    private static InstanceSpec spec(int serverId) {
        return new InstanceSpec(null, -1, -1, -1, true, serverId, TICK_MILLIS, -1);
    }

    /** Every server's address, as a client outside the instances would connect. */
    String connectString() {
        return connectString;
    }

    List<ZooKeeperServer> servers() {
        return servers;
    }

    @Override
    public void close() throws IOException {
        owner.close();
    }
}
