package io.shardingjob.test;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.testing.Sessions;
import io.shardingjob.core.testing.TcpProxy;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One instance of the application in a {@link ShardingCluster}: its application context, and the faults a test may
 * inject into it. Its ZooKeeper link goes through a proxy of its own, so that {@link #cutOff()} and {@link #freeze()}
 * touch this instance only, as a partition or a paused process would.
 */
public final class ShardingInstance implements AutoCloseable {

    private final String id;
    private final String serverConnectString;
    private final TcpProxy proxy;
    private final ConfigurableApplicationContext context;

    private ShardingInstance(
            String id, String serverConnectString, TcpProxy proxy, ConfigurableApplicationContext context) {
        this.id = id;
        this.serverConnectString = serverConnectString;
        this.proxy = proxy;
        this.context = context;
    }

    static ShardingInstance start(
            String id,
            int serverPort,
            String serverConnectString,
            List<Class<?>> sources,
            Map<String, String> properties)
            throws IOException {
        TcpProxy proxy = new TcpProxy(serverPort);
        try {
            Map<String, String> all = new LinkedHashMap<>(properties);
            all.put("sharding.zookeeper.connect-string", proxy.connectString());
            // As command-line arguments, so that they win over the application's own files (application.yml).
            String[] arguments = all.entrySet().stream()
                    .map(property -> "--" + property.getKey() + "=" + property.getValue())
                    .toArray(String[]::new);
            ConfigurableApplicationContext context =
                    new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).run(arguments);
            return new ShardingInstance(id, serverConnectString, proxy, context);
        } catch (RuntimeException failed) {
            proxy.close();
            throw failed;
        }
    }

    public String id() {
        return id;
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    public ShardingOperations operations() {
        return bean(ShardingOperations.class);
    }

    /** The job's coordinator on this instance, for its assignment, ledger and operations. */
    public JobCoordinator job(String name) {
        return operations()
                .job(name)
                .orElseThrow(() -> new IllegalArgumentException("No job '" + name + "' runs on instance " + id));
    }

    public boolean isRunning() {
        return context.isActive();
    }

    /** Whether the instance's link to ZooKeeper is up, as far as its client knows. */
    public boolean isConnected() {
        return isRunning() && operations().isConnected();
    }

    /**
     * Makes the server end the instance's session now, as a partition longer than the session timeout would: its
     * claims are orphaned at once and its items taken over (failover on), while the runs it has going go on until they
     * notice. The instance then makes a new session and registers again.
     */
    public void expireSession() {
        try {
            Sessions.expire(bean(RegistryCenter.class).client(), serverConnectString);
        } catch (Exception ex) {
            throw new IllegalStateException("Could not expire the session of instance " + id, ex);
        }
    }

    /** Drops the instance's connection to ZooKeeper and refuses new ones, as a partition does, until {@link #reconnect}. */
    public void cutOff() {
        proxy.cut();
    }

    /** Ends {@link #cutOff()}: the instance reconnects, on its session if it has not expired meanwhile. */
    public void reconnect() {
        proxy.restore();
    }

    /**
     * Holds every byte between the instance and ZooKeeper, keeping the connection open, until {@link #thaw}: what the
     * server sees of a paused process. The instance's own threads go on (a JVM cannot be paused from inside), so a job
     * that should act as a paused one waits for the test to let it go on.
     */
    public void freeze() {
        proxy.freeze();
    }

    /** Ends {@link #freeze()}: what was held goes on, and the instance learns what happened meanwhile. */
    public void thaw() {
        proxy.thaw();
    }

    /** Stops the instance as a graceful shutdown does: its items are handed over, then its context is closed. */
    public void stop() {
        context.close();
    }

    @Override
    public void close() {
        try {
            stop();
        } finally {
            proxy.close();
        }
    }
}
