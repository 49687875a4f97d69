package io.shardingjob.test;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.jobs.ShardedJobExecutors;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.testing.Sessions;
import io.shardingjob.core.testing.TcpProxy;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;

/**
 * One instance of the application in a {@link ShardingCluster}: its application context, and the faults a test may
 * inject into it. Its ZooKeeper link goes through proxies of its own, one to each server of the cluster's ZooKeeper, so
 * that {@link #cutOff()} and {@link #freeze()} touch this instance only, as a partition or a paused process would, and
 * that a server's stop drops only the connections that went to that server.
 */
public final class ShardingInstance implements AutoCloseable {

    private final String id;
    private final String serverConnectString;
    /** One proxy to each ZooKeeper server: a fault of the instance's link cuts or freezes them all. */
    private final List<TcpProxy> proxies;

    private final ConfigurableApplicationContext context;

    private ShardingInstance(
            String id, String serverConnectString, List<TcpProxy> proxies, ConfigurableApplicationContext context) {
        this.id = id;
        this.serverConnectString = serverConnectString;
        this.proxies = List.copyOf(proxies);
        this.context = context;
    }

    static ShardingInstance start(
            String id,
            List<ZooKeeperServer> servers,
            String serversConnectString,
            List<Class<?>> sources,
            Map<String, String> properties,
            MovableClock clock)
            throws IOException {
        List<TcpProxy> proxies = new ArrayList<>();
        try {
            for (ZooKeeperServer server : servers) {
                proxies.add(new TcpProxy(server.port()));
            }
            Map<String, String> all = new LinkedHashMap<>(properties);
            all.put(
                    "sharding.zookeeper.connect-string",
                    proxies.stream().map(TcpProxy::connectString).collect(Collectors.joining(",")));
            // As command-line arguments, so that they win over the application's own files (application.yml).
            String[] arguments = all.entrySet().stream()
                    .map(property -> "--" + property.getKey() + "=" + property.getValue())
                    .toArray(String[]::new);
            ConfigurableApplicationContext context = new SpringApplicationBuilder(withAutoConfiguration(sources))
                    .initializers(withClock(clock))
                    .run(arguments);
            return new ShardingInstance(id, serversConnectString, proxies, context);
        } catch (IOException | RuntimeException failed) {
            proxies.forEach(TcpProxy::close);
            throw failed;
        }
    }

    /**
     * The sources, with Spring Boot's auto-configuration (the starter's among it) when none of them brings it: job beans
     * of a plain {@code @Configuration} or {@code @Component}, with no {@code @SpringBootApplication}, run as they would
     * in one.
     */
    static Class<?>[] withAutoConfiguration(List<Class<?>> sources) {
        boolean configured = sources.stream().anyMatch(source -> {
            MergedAnnotations annotations = MergedAnnotations.from(source, SearchStrategy.TYPE_HIERARCHY);
            return annotations.isPresent(EnableAutoConfiguration.class)
                    || annotations.isPresent(ImportAutoConfiguration.class);
        });
        List<Class<?>> all = new ArrayList<>(sources);
        if (!configured) {
            all.add(JobBeansApplication.class);
        }
        return all.toArray(Class<?>[]::new);
    }

    /** The cluster's clock as the instance's {@link Clock} bean, primary over one of the application's. */
    private static ApplicationContextInitializer<ConfigurableApplicationContext> withClock(MovableClock clock) {
        return context -> {
            if (!(context instanceof GenericApplicationContext generic)) {
                throw new IllegalStateException("The kit gives its clock to a GenericApplicationContext, not to "
                        + context.getClass().getName());
            }
            generic.registerBean(
                    "shardingTestClock", Clock.class, () -> clock, definition -> definition.setPrimary(true));
        };
    }

    /** What a source of job beans alone runs in: Spring Boot's auto-configuration, as an application has it. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class JobBeansApplication {}

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
        proxies.forEach(TcpProxy::cut);
    }

    /** Ends {@link #cutOff()}: the instance reconnects, on its session if it has not expired meanwhile. */
    public void reconnect() {
        proxies.forEach(TcpProxy::restore);
    }

    /**
     * Holds every byte between the instance and ZooKeeper, keeping the connection open, until {@link #thaw}: what the
     * server sees of a paused process. The instance's own threads go on (a JVM cannot be paused from inside), so a job
     * that should act as a paused one waits for the test to let it go on.
     */
    public void freeze() {
        proxies.forEach(TcpProxy::freeze);
    }

    /** Ends {@link #freeze()}: what was held goes on, and the instance learns what happened meanwhile. */
    public void thaw() {
        proxies.forEach(TcpProxy::thaw);
    }

    /** Wakes the instance's timer after its clock jumped, so that the fires the jump passed start now. */
    void clockMoved() {
        if (isRunning()) {
            bean(ShardedJobExecutors.class).timer().clockMoved();
        }
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
            proxies.forEach(TcpProxy::close);
        }
    }
}
