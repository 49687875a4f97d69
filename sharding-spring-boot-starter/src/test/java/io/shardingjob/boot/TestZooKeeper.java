package io.shardingjob.boot;

import java.util.UUID;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * One real ZooKeeper server for every test of the starter, started on first use, with a 100 ms tick so that sessions
 * can be short. Tests keep apart by using a namespace of their own.
 */
public final class TestZooKeeper {

    private static TestingServer server;

    private TestZooKeeper() {}

    public static synchronized String connectString() {
        if (server == null) {
            try {
                server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, -1), true);
            } catch (Exception ex) {
                throw new IllegalStateException("Could not start the test ZooKeeper", ex);
            }
            TestingServer started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (Exception ignored) {
                    // The JVM is exiting anyway.
                }
            }));
        }
        return server.getConnectString();
    }

    /** A namespace no other test uses. */
    public static String newNamespace() {
        return "test-" + UUID.randomUUID();
    }

    /**
     * The properties that point an application at the test server under a fresh namespace, with short timings so that
     * tests run fast.
     */
    public static String[] properties(String instanceId) {
        return properties(newNamespace(), instanceId);
    }

    /** Adds {@link #properties(String)} to a {@code @SpringBootTest}'s environment, from its property source method. */
    public static void register(DynamicPropertyRegistry registry, String instanceId) {
        for (String property : properties(instanceId)) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
    }

    /** The same, for several instances of one application sharing a namespace. */
    public static String[] properties(String namespace, String instanceId) {
        return new String[] {
            "sharding.zookeeper.connect-string=" + connectString(),
            "sharding.zookeeper.namespace=" + namespace,
            "sharding.zookeeper.session-timeout=2s",
            "sharding.zookeeper.connection-timeout=5s",
            "sharding.zookeeper.base-sleep-time=100ms",
            "sharding.zookeeper.max-sleep-time=500ms",
            "sharding.coordination.reconcile-interval=500ms",
            "sharding.coordination.sharding-wait-timeout=3s",
            "sharding.shutdown.grace-period=3s",
            "sharding.instance-id=" + instanceId
        };
    }
}
