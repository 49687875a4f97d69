package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.testing.Sessions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Gives each test a real, in-process ZooKeeper server with a short tick, so that sessions can time out in about a
 * second, and independent instances each with their own Curator client and session.
 */
public abstract class ZooKeeperTestSupport {

    protected static final Duration SESSION_TIMEOUT = Duration.ofMillis(1500);

    protected static final String NAMESPACE = "sharding-test";

    protected TestingServer server;

    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, -1), true);
    }

    @AfterEach
    void stopEverything() throws Exception {
        while (!toClose.isEmpty()) {
            try {
                toClose.pop().close();
            } catch (Exception ignored) {
                // Best effort: a test that crashed an instance already closed parts of it.
            }
        }
        server.close();
    }

    /** Closed after the test, before the clients it uses. */
    protected <T extends AutoCloseable> T closeAfterTest(T closeable) {
        toClose.push(closeable);
        return closeable;
    }

    /** A new client with its own session, started and connected. */
    protected CuratorFramework newClient() throws InterruptedException {
        return newClient(SESSION_TIMEOUT);
    }

    protected CuratorFramework newClient(Duration sessionTimeout) throws InterruptedException {
        return newClient(server.getConnectString(), sessionTimeout);
    }

    /** A new client of another server, or of this one through a proxy, started and connected. */
    protected CuratorFramework newClient(String connectString, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(5000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 500))
                .build();
        client.start();
        if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No connection to the test ZooKeeper");
        }
        toClose.push(client);
        return client;
    }

    /** A started coordinator on its own client, closed after the test. */
    protected Instance startInstance(String instanceId, JobConfiguration configuration) throws InterruptedException {
        Instance instance = newInstance(instanceId, configuration);
        instance.coordinator().start();
        return instance;
    }

    /** A coordinator on its own client, not started. */
    protected Instance newInstance(String instanceId, JobConfiguration configuration) throws InterruptedException {
        CuratorFramework client = newClient();
        JobCoordinator coordinator = JobCoordinator.builder(client, configuration)
                .instanceId(instanceId)
                .reconcileInterval(Duration.ofMillis(500))
                .shardingWaitTimeout(Duration.ofSeconds(5))
                .build();
        toClose.push(coordinator);
        return new Instance(client, coordinator);
    }

    /**
     * Makes the server end the client's session at once, as a partition longer than the session timeout would: a
     * second connection with the same session id and password is opened and closed.
     */
    protected void expireSession(CuratorFramework client) throws Exception {
        Sessions.expire(client, server.getConnectString());
    }

    /**
     * Kills an instance the way a crash does: its session ends without the coordinator leaving cleanly (it never runs
     * its close), so the survivors learn of it only from ZooKeeper.
     */
    protected static void crash(Instance instance) {
        instance.client().close();
    }

    /** One simulated process: its own client and its coordinator. */
    public record Instance(CuratorFramework client, JobCoordinator coordinator) {

        public String id() {
            return coordinator.instanceId();
        }
    }
}
