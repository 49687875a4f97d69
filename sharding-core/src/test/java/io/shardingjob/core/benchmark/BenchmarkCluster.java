package io.shardingjob.core.benchmark;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A ZooKeeper server in its own process on loopback, and instances of a job in this JVM, each with its own Curator
 * client (its own session), the way separate processes would connect, and a request counter on each client.
 */
final class BenchmarkCluster implements AutoCloseable {

    /** A JVM that compiles fully and holds thousands of jobs: the server's speed is part of what is measured. */
    static final List<String> SERVER_JVM = List.of("-Xmx1g", "-XX:+UseParallelGC");

    private final ProcessGroup processes = new ProcessGroup();

    private final ZooKeeperServers.Server server;

    private final List<Member> members = new ArrayList<>();

    BenchmarkCluster(String name) {
        // A fresh data directory: figures must not depend on what an earlier run left in the server.
        deleteRecursively(ProcessGroup.workDirectory("benchmark/" + name));
        server = ZooKeeperServers.standalone(processes, "benchmark/" + name, SERVER_JVM);
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    String connectString() {
        return server.address();
    }

    /** One instance of a job. */
    record Member(
            String id,
            CuratorFramework client,
            RequestCounter requests,
            JobCoordinator coordinator,
            ExecutorService pool) {

        /** Leaves cleanly, as a closing application does. */
        void leave() {
            coordinator.close();
            client.close();
            pool.shutdownNow();
        }
    }

    CuratorFramework client(String namespace, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.address())
                .namespace(namespace)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                .build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No connection to " + server.address());
        }
        return client;
    }

    /** Builds an instance; {@link Member#coordinator()} is not started yet, so that its start can be timed. */
    Member member(
            String namespace,
            String id,
            JobConfiguration configuration,
            ItemExecutor job,
            int threads,
            ExecutionListener listener,
            UnaryOperator<JobCoordinator.Builder> more)
            throws InterruptedException {
        CuratorFramework client = client(namespace, Duration.ofSeconds(5));
        RequestCounter requests = RequestCounter.attachTo(client);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        JobCoordinator coordinator = more.apply(JobCoordinator.builder(client, configuration)
                        .instanceId(id)
                        .job(job, pool)
                        .listener(listener))
                .build();
        Member member = new Member(id, client, requests, coordinator, pool);
        synchronized (members) {
            members.add(member);
        }
        return member;
    }

    /** Requests all members sent so far. */
    RequestCounter.Counts requests(List<Member> of) {
        RequestCounter.Counts sum = RequestCounter.Counts.NONE;
        for (Member member : of) {
            sum = sum.plus(member.requests().counts());
        }
        return sum;
    }

    /** Closes every member, most recent first, then stops the server. */
    @Override
    public void close() {
        List<Member> all;
        synchronized (members) {
            all = new ArrayList<>(members);
            members.clear();
        }
        // In parallel: fifty clean leaves one after another would each wait for a reshard.
        all.parallelStream().forEach(member -> {
            try {
                member.leave();
            } catch (RuntimeException ignored) {
                // Already closed by the benchmark.
            }
        });
        processes.close();
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    static double millisSince(long startNanos, long endNanos) {
        return (endNanos - startNanos) / 1_000_000.0;
    }
}
