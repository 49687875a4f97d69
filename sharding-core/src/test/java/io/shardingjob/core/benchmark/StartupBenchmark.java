package io.shardingjob.core.benchmark;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.ShardedJobs;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.RequestCounter.Counts;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * What starting many jobs on one instance costs: N jobs on one Curator client (as the starter runs them), started
 * together through {@link ShardedJobs#startAll()}, timed until every job's one item is owned by this instance, with the
 * ZooKeeper requests each job's start sent (split by operation) and the watches each job holds once started. Measured
 * twice: the first start in an empty namespace (every node created) and a restart, a new client (a new session) on
 * the nodes the first start left, as in a rolling restart. The jobs never fire: only the start is counted.
 *
 * <p>The job counts come from {@code -Dstartup.jobs=50,500,5000} (the default), the starts measured from {@code
 * -Dstartup.starts=first,restart} (the default; a restart follows the first start in the same namespace).
 */
class StartupBenchmark {

    private static final String[] WATCH_KINDS = {
        "getPersistentRecursiveWatches", "getPersistentWatches", "getDataWatches", "getExistWatches", "getChildWatches"
    };

    @Test
    void measuresTheRequestsWatchesAndTimeOfStartingManyJobsOnOneInstance() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Start-up of many jobs on one instance",
                "N jobs (one item each, a cron that does not fire during the run) on one Curator client with a shared"
                        + " coordination pool of 4 threads, one ZooKeeper server process on loopback, started with"
                        + " ShardedJobs.startAll(). *start s*: until startAll() returned; *owned s*: until every job's"
                        + " item is assigned to this instance. Requests are counted on the client from the start"
                        + " until no request was sent for 300 ms. Watches are the client's, once quiet: persistent"
                        + " recursive (AddWatch, as CuratorCache sets), persistent, and one-shot data, exists and"
                        + " children watches; *server watches* is the server's wchs total.");
        report.table(
                "jobs",
                "start",
                "start s",
                "owned s",
                "jobs/s",
                "requests per job",
                "server packets per job",
                "reads/writes per job",
                "requests per job by operation",
                "watches per job (recursive/persistent/data/exists/children)",
                "server watches per job");
        int[] counts = Arrays.stream(
                        System.getProperty("startup.jobs", "50,500,5000").split(","))
                .mapToInt(count -> Integer.parseInt(count.trim()))
                .toArray();
        try (BenchmarkCluster cluster = new BenchmarkCluster("startup")) {
            for (int jobs : counts) {
                String namespace = "startup-" + jobs;
                for (String start :
                        System.getProperty("startup.starts", "first,restart").split(",")) {
                    measure(cluster, report, namespace, jobs, start.trim());
                }
            }
        }
        report.note("Goal (issue 25): 5,000 jobs started on one instance in under 10 s, at most 5 requests per job"
                + " start. Timings were taken on a shared two-core machine.");
        report.write();
    }

    private void measure(BenchmarkCluster cluster, BenchmarkReport report, String namespace, int count, String start)
            throws Exception {
        CuratorFramework client = cluster.client(namespace, Duration.ofSeconds(30));
        RequestCounter requests = RequestCounter.attachTo(client);
        ScheduledExecutorService coordination = Executors.newScheduledThreadPool(4);
        ExecutorService items = Executors.newFixedThreadPool(4);
        ShardedJobs jobs = SoloJobs.of(client, count, coordination, items);
        try {
            List<JobCoordinator> all = new ArrayList<>(jobs.all());
            Counts before = requests.counts();
            long packetsBefore = serverPacketsReceived(cluster);
            long started = System.nanoTime();
            jobs.startAll();
            long returned = System.nanoTime();
            awaitOwned(all);
            long owned = System.nanoTime();
            requests.awaitQuiet(Duration.ofMillis(300));
            Counts cost = requests.counts().since(before);
            requests.mostFrequentPaths(40)
                    .forEach((path, sent) -> System.out.printf(
                            Locale.ROOT,
                            "[startup] %d jobs, %s: %s %.2f per job%n",
                            count,
                            start,
                            path,
                            sent / (double) count));
            long packets = serverPacketsReceived(cluster) - packetsBefore;
            double ownedSeconds = (owned - started) / 1e9;
            report.row(
                    count,
                    start,
                    (returned - started) / 1e9,
                    ownedSeconds,
                    count / ownedSeconds,
                    cost.total() / (double) count,
                    packets / (double) count,
                    String.format(
                            Locale.ROOT, "%.1f / %.1f", cost.reads() / (double) count, cost.writes() / (double) count),
                    perJob(cost, count),
                    watchesPerJob(client, count),
                    serverWatches(cluster) / (double) count);
        } finally {
            // Closed together, as the starter closes its jobs: one after another would take one leave each.
            jobs.all().parallelStream().forEach(JobCoordinator::close);
            client.close();
            coordination.shutdownNow();
            items.shutdownNow();
        }
    }

    /** Every job's one item assigned to this instance. */
    private static void awaitOwned(List<JobCoordinator> jobs) {
        SoloJobs.awaitEvery(
                jobs,
                job -> {
                    Assignment assignment = job.assignment();
                    return assignment.ownersByItem().size() == 1
                            && assignment.itemsByInstance().containsKey(SoloJobs.INSTANCE);
                },
                Duration.ofMinutes(10));
    }

    private static String perJob(Counts cost, int count) {
        return cost.byOperation().entrySet().stream()
                .map(entry -> String.format(Locale.ROOT, "%s %.1f", entry.getKey(), entry.getValue() / (double) count))
                .collect(Collectors.joining(", "));
    }

    /**
     * The watches the client holds, by kind, from ZooKeeper's own watch manager (its accessors are protected, meant
     * for tests).
     */
    private static String watchesPerJob(CuratorFramework client, int count) throws Exception {
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        List<String> perKind = new ArrayList<>();
        for (String kind : WATCH_KINDS) {
            Method accessor = ZooKeeper.class.getDeclaredMethod(kind);
            accessor.setAccessible(true);
            List<?> paths = (List<?>) accessor.invoke(zooKeeper);
            perKind.add(String.format(Locale.ROOT, "%.1f", paths.size() / (double) count));
        }
        return String.join("/", perKind);
    }

    /**
     * Requests the server received, from {@code mntr}: Curator's tracer reports only the requests that succeeded (a
     * create answered NodeExists is not counted), the server counts every one, and a ping every third of the 30 s
     * session timeout.
     */
    private static long serverPacketsReceived(BenchmarkCluster cluster) {
        return serverFigure(cluster, "mntr", "zk_packets_received");
    }

    /** The server's {@code wchs} total: one per data or child watch of a path, a persistent watch counting in both. */
    private static long serverWatches(BenchmarkCluster cluster) {
        return serverFigure(cluster, "wchs", "Total watches:");
    }

    private static long serverFigure(BenchmarkCluster cluster, String word, String label) {
        String port = cluster.connectString().substring(cluster.connectString().lastIndexOf(':') + 1);
        return ZooKeeperServers.fourLetterWord(Integer.parseInt(port), word)
                .lines()
                .filter(line -> line.startsWith(label))
                .mapToLong(line -> Long.parseLong(line.substring(label.length()).trim()))
                .findFirst()
                .orElse(-1);
    }
}
