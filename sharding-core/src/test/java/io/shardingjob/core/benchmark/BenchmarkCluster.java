package io.shardingjob.core.benchmark;

import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.JobCoordinatorBuilder;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionListener;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A ZooKeeper server in its own process on loopback, and instances of a job in this JVM, each with its own Curator
 * client (its own session), the way separate processes would connect, and a request counter on each client.
 */
final class BenchmarkCluster implements AutoCloseable {

    private final ProcessGroup processes = new ProcessGroup();

    private final ZooKeeperServers.Server server;

    private final List<Member> members = new ArrayList<>();

    /** Fires block until their items end: each runs on a thread of its own, as each instance's scheduler would. */
    private final ExecutorService fires = Executors.newCachedThreadPool();

    BenchmarkCluster(String name) {
        server = ZooKeeperServers.forBenchmark(processes, "benchmark/" + name);
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

    /** The server's client port, for a proxy in front of it. */
    int port() {
        return server.clientPort();
    }

    CuratorFramework client(String namespace, Duration sessionTimeout) throws InterruptedException {
        return client(server.address(), namespace, sessionTimeout);
    }

    /** A client through {@code connectString}: the server's address, or a proxy's in front of it. */
    CuratorFramework client(String connectString, String namespace, Duration sessionTimeout)
            throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .namespace(namespace)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                .build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No connection to " + connectString);
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
            UnaryOperator<JobCoordinatorBuilder> more)
            throws InterruptedException {
        return member(client(namespace, Duration.ofSeconds(5)), id, configuration, job, threads, listener, more);
    }

    /** Builds an instance on a client of its own (through a proxy, say), not started yet. */
    Member member(
            CuratorFramework client,
            String id,
            JobConfiguration configuration,
            ItemExecutor job,
            int threads,
            ExecutionListener listener,
            UnaryOperator<JobCoordinatorBuilder> more) {
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

    /** Starts a {@link BenchmarkWorker} process with the given arguments after the connect string. */
    Process startWorker(Path output, String... arguments) {
        List<String> command = new ArrayList<>(List.of(
                ProcessGroup.java(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-cp",
                ProcessGroup.testClassPath(),
                BenchmarkWorker.class.getName(),
                server.address()));
        command.addAll(List.of(arguments));
        return processes.start(command, output);
    }

    /** Fires every member at once for the same fire time. */
    List<CompletableFuture<FireReport>> fireAll(List<Member> of, Instant fireTime) {
        return of.stream()
                .map(member -> CompletableFuture.supplyAsync(
                        () -> member.coordinator().fire(ExecutionSource.NORMAL, fireTime), fires))
                .toList();
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
        fires.shutdownNow();
        processes.close();
    }

    /** Every instance sees one assignment (one epoch) naming exactly the instances given, covering every item. */
    static void awaitAllOwned(List<Member> members, int items) {
        Set<String> ids = members.stream().map(Member::id).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    Set<Long> epochs = new HashSet<>();
                    for (Member member : members) {
                        Assignment assignment = member.coordinator().assignment();
                        if (!assignment.itemsByInstance().keySet().equals(ids)
                                || assignment.ownersByItem().size() != items) {
                            return false;
                        }
                        epochs.add(assignment.epoch());
                    }
                    return epochs.size() == 1;
                });
    }

    /** Waits until no client has sent a request for 300 ms: the cost of a change includes its last cache refresh. */
    void awaitQuiet(List<Member> members) {
        long[] last = {-1};
        long[] since = {System.nanoTime()};
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    long total = requests(members).total();
                    if (total != last[0]) {
                        last[0] = total;
                        since[0] = System.nanoTime();
                        return false;
                    }
                    return System.nanoTime() - since[0] > Duration.ofMillis(300).toNanos();
                });
    }

    static Member leader(List<Member> members) {
        return members.stream()
                .filter(member -> member.coordinator().isLeader())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no leader"));
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
