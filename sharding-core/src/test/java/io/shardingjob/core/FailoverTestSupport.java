package io.shardingjob.core;

import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.testing.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;

/**
 * Workers that run real items, each behind its own TCP proxy so that a test can kill one (its items stop, its session
 * expires on the server after the session timeout, as after a kill -9) or partition one (it lives on as a zombie),
 * and a recorder of every run with its start and end, to check that every item ran and no two runs overlapped.
 */
abstract class FailoverTestSupport extends ZooKeeperTestSupport {

    protected final Recorder recorder = new Recorder();

    private final List<Worker> workers = new ArrayList<>();

    protected ShardingStrategies strategies = ShardingStrategies.defaults();

    @AfterEach
    void stopWorkers() {
        for (Worker worker : workers) {
            if (worker.dead.get()) {
                // A dead process leaves nothing cleanly: without a client, closing only stops its threads.
                worker.client.close();
            }
            worker.dead.set(true);
            try {
                worker.coordinator.close();
            } catch (RuntimeException ignored) {
                // A killed worker cannot leave cleanly.
            }
            worker.client.close();
            worker.proxy.close();
            worker.pool.shutdownNow();
        }
    }

    /** Starts a worker whose items take {@code itemDuration(item)} milliseconds. */
    protected Worker startWorker(String id, JobConfiguration configuration, ToLongFunction<Integer> itemMillis)
            throws Exception {
        return startWorker(id, configuration, itemMillis, Duration.ofSeconds(10));
    }

    protected Worker startWorker(
            String id, JobConfiguration configuration, ToLongFunction<Integer> itemMillis, Duration grace)
            throws Exception {
        return startWorker(id, configuration, itemMillis, grace, 8);
    }

    /** A worker whose item pool has {@code poolSize} threads: items beyond them wait in its queue. */
    protected Worker startWorker(
            String id, JobConfiguration configuration, ToLongFunction<Integer> itemMillis, Duration grace, int poolSize)
            throws Exception {
        return startWorker(id, configuration, itemMillis, grace, poolSize, UnaryOperator.identity());
    }

    /** A worker whose coordinator is built with {@code settings} too. */
    protected Worker startWorker(
            String id,
            JobConfiguration configuration,
            ToLongFunction<Integer> itemMillis,
            Duration grace,
            int poolSize,
            UnaryOperator<JobCoordinatorBuilder> settings)
            throws Exception {
        TcpProxy proxy = new TcpProxy(server.getPort());
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs(1000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 200))
                .build();
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(poolSize);
        AtomicBoolean dead = new AtomicBoolean();
        JobCoordinator coordinator = settings.apply(JobCoordinator.builder(client, configuration))
                .instanceId(id)
                .strategies(strategies)
                .reconcileInterval(Duration.ofMillis(300))
                .shardingWaitTimeout(Duration.ofSeconds(10))
                .shutdownGracePeriod(grace)
                .job(recorder.job(id, dead, itemMillis), pool)
                .listener(result -> recorder.finished(id, result))
                .build();
        Worker worker = new Worker(id, client, proxy, coordinator, pool, dead);
        workers.add(worker);
        coordinator.start();
        return worker;
    }

    /**
     * Waits until the cluster has settled, as it has long before a scheduled fire: every worker sees the same
     * assignment, made for exactly these workers, and no reshard pending. Waiting for one worker is not enough: another
     * one's cache may still show the previous epoch, and a fire planned under two epochs runs an item that moved
     * between them twice, or on neither.
     */
    protected static void awaitSettled(Worker... workers) {
        Set<String> ids = Arrays.stream(workers).map(Worker::id).collect(Collectors.toSet());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Assignment first = workers[0].coordinator().assignment();
            return first.itemsByInstance().keySet().equals(ids)
                    && Arrays.stream(workers)
                            .map(Worker::coordinator)
                            .allMatch(coordinator -> !coordinator.isReshardPending()
                                    && coordinator.assignment().equals(first));
        });
    }

    /** Now, to the millisecond: the ledger keys fires by the millisecond, and every run of a fire carries that time. */
    protected static Instant now() {
        return Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    }

    /** The process dies: its items stop at once and its session expires after the session timeout. */
    protected static Instant kill(Worker worker) {
        // The network first: a killed process writes nothing, not even the failure its dying items would report.
        worker.proxy.cut();
        worker.dead.set(true);
        return Instant.now();
    }

    /** Fires every worker at once for the same fire time, as their schedulers would. */
    protected static List<CompletableFuture<FireReport>> fireAll(Instant fireTime, Worker... workers) {
        List<CompletableFuture<FireReport>> fires = new ArrayList<>();
        for (Worker worker : workers) {
            fires.add(CompletableFuture.supplyAsync(() -> worker.coordinator.fire(ExecutionSource.NORMAL, fireTime)));
        }
        return fires;
    }

    /** One simulated process. */
    protected record Worker(
            String id,
            CuratorFramework client,
            TcpProxy proxy,
            JobCoordinator coordinator,
            ExecutorService pool,
            AtomicBoolean dead) {}

    /** Every run of every item on every worker. */
    protected static final class Recorder {

        private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

        private final Set<String> started = ConcurrentHashMap.newKeySet();

        ItemExecutor job(String instance, AtomicBoolean dead, ToLongFunction<Integer> itemMillis) {
            return context -> {
                started.add(instance + ":" + context.item());
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(itemMillis.applyAsLong(context.item()));
                while (System.nanoTime() < until) {
                    if (dead.get()) {
                        throw new IllegalStateException("the process died");
                    }
                    Thread.sleep(5);
                }
                if (dead.get()) {
                    throw new IllegalStateException("the process died");
                }
            };
        }

        void finished(String instance, ItemResult result) {
            runs.add(new Run(
                    instance,
                    result.context().item(),
                    result.fireTime(),
                    result.source(),
                    result.start(),
                    result.end(),
                    result.succeeded()));
        }

        boolean hasStarted(String instance, int item) {
            return started.contains(instance + ":" + item);
        }

        List<Run> runs() {
            return List.copyOf(runs);
        }

        List<Run> completed() {
            return runs.stream().filter(Run::completed).toList();
        }

        /** Completed runs of an item, in start order. */
        List<Run> completedRuns(int item) {
            return completed().stream()
                    .filter(run -> run.item() == item)
                    .sorted(Comparator.comparing(Run::start))
                    .toList();
        }

        /** Pairs of runs of one item, for any fires, whose intervals overlap. */
        List<String> overlaps() {
            return overlapsWithin(Run::item);
        }

        /** Pairs of runs of one item for one fire whose intervals overlap: the promise says none, ever. */
        List<String> sameFireOverlaps() {
            return overlapsWithin(run -> run.item() + "@" + run.fireTime());
        }

        private List<String> overlapsWithin(java.util.function.Function<Run, Object> key) {
            Map<Object, List<Run>> byItem = runs.stream().collect(Collectors.groupingBy(key));
            List<String> overlaps = new ArrayList<>();
            byItem.forEach((item, itemRuns) -> {
                List<Run> sorted = itemRuns.stream()
                        .sorted(Comparator.comparing(Run::start))
                        .toList();
                for (int i = 1; i < sorted.size(); i++) {
                    if (sorted.get(i).start().isBefore(sorted.get(i - 1).end())) {
                        overlaps.add(sorted.get(i - 1) + " overlaps " + sorted.get(i));
                    }
                }
            });
            return overlaps;
        }
    }

    /** One run of one item. */
    protected record Run(
            String instance,
            int item,
            Instant fireTime,
            ExecutionSource source,
            Instant start,
            Instant end,
            boolean completed) {}
}
