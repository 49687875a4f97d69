package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.ShardedJobs;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper requests per job fire per instance in steady state, everything counted: the fire's claims and their
 * group-committed ends, the audits and the leader's upkeep of the ledger (watermark, retention) that run every
 * reconcile interval, and the caches of the small state. Fires come every 100 ms with a one-second reconcile interval,
 * the same ratio as fires every second with the default ten-second interval.
 */
class CoordinationTrafficBenchmark {

    /** Fires per job; {@code -Dtraffic.fires} for another count. */
    private static final int FIRES = Integer.getInteger("traffic.fires", 60);

    /** Between fires; {@code -Dtraffic.period-ms} for a longer one on a loaded machine, where fires would overlap. */
    private static final Duration PERIOD = Duration.ofMillis(Long.getLong("traffic.period-ms", 100));

    /** Between periodic checks; {@code -Dtraffic.reconcile-ms} for another (the default interval is 10 s). */
    private static final Duration RECONCILE = Duration.ofMillis(Long.getLong("traffic.reconcile-ms", 1_000));

    /** Short, so that the run's steady state includes deleting old fires. */
    private static final Duration RETENTION = Duration.ofSeconds(2);

    @Test
    void countsTheZooKeeperRequestsOfEachJobFireOnEachInstance() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Steady-state coordination traffic",
                "Each instance has one Curator client shared by its jobs; every job fires " + FIRES + " times, every "
                        + PERIOD.toMillis() + " ms, with a reconcile interval of " + RECONCILE.toMillis()
                        + " ms and a ledger retention of "
                        + RETENTION.toSeconds()
                        + " s, so that old fires are deleted during the run as in a service that"
                        + " runs for days. Requests counted on every client for the whole run, including audits, the"
                        + " leader's ledger upkeep (deletions included) and cache reads.");
        report.table(
                "instances",
                "jobs",
                "items per job",
                "failover",
                "ledger requests per job fire per instance",
                "other requests (caches, election) per job fire per instance",
                "all requests per job fire per instance",
                "all requests per item");
        try (BenchmarkCluster cluster = new BenchmarkCluster("traffic")) {
            for (Case shape : cases()) {
                measure(cluster, report, shape);
            }
        }
        report.note("Goal (issue 12): at most 2 requests per job fire per instance, whatever the item count. Before"
                + " the fire ledger: 24 with one instance and ten jobs. With the job's schedule known (the starter"
                + " passes its cron), the request that records the last ends of a fire also claims the instance's"
                + " items of the next fire, so a fire in steady state costs one request and starts its items with"
                + " none. Ends that keep coming linger together (5 ms after the latest, 50 ms at most), so a"
                + " thousand items' ends and the next fire's thousand claims are one request. Only the owner of the"
                + " lowest item creates fire nodes, a period ahead, so no instance loses a request to a node"
                + " another one created. The leader reads no fire whose every item ended on it, and deletes old"
                + " fires from their claims' names, several per request. What is left above one is upkeep (each"
                + " second the periodic audit, and on the leader the ledger upkeep, for every job) and, at 1,000"
                + " items every 100 ms on two cores, fires that end after the next one is due: that one claims its"
                + " items at its own instant.");
        report.write();
    }

    private void measure(BenchmarkCluster cluster, BenchmarkReport report, Case shape) throws Exception {
        int instances = shape.instances();
        int jobs = shape.jobs();
        int items = shape.items();
        String namespace = "traffic-" + instances + "-" + jobs + "-" + items + (shape.failover() ? "" : "-off");
        List<CuratorFramework> clients = new ArrayList<>();
        List<RequestCounter> counters = new ArrayList<>();
        List<List<JobCoordinator>> coordinators = new ArrayList<>();
        List<ShardedJobs> started = new ArrayList<>();
        // The starter's item pool at its default size; -Dtraffic.item-threads for another.
        ExecutorService pool = Executors.newFixedThreadPool(Integer.getInteger("traffic.item-threads", 64));
        // Hands each fire over and returns, as the starter's fire pool does: thousands of jobs take no thread each.
        ExecutorService firing = Executors.newFixedThreadPool(8);
        // Shared by every job, as the starter shares its coordination pool: by default each job has a thread of its
        // own.
        ScheduledExecutorService coordination = Executors.newScheduledThreadPool(2);
        // Fires every PERIOD from a whole second once every job is owned; the coordinators know that schedule, as the
        // starter's cron does.
        AtomicReference<Instant> firstFire = new AtomicReference<>();
        // Every run of an item of a fire, whoever ran it: the fire the benchmark hands over, or the audit's make-up of
        // a
        // fire it found unrun first (the hand-over threads reach thousands of jobs' fires over some milliseconds).
        Map<String, Integer> runs = new ConcurrentHashMap<>();
        FireSchedule everyPeriod = (configuration, after) -> {
            Instant from = firstFire.get();
            if (from == null) {
                return null;
            }
            long periods =
                    after.isBefore(from) ? 0 : Duration.between(from, after).toNanos() / PERIOD.toNanos() + 1;
            return from.plus(PERIOD.multipliedBy(periods));
        };
        for (int i = 0; i < instances; i++) {
            CuratorFramework client = cluster.client(namespace, Duration.ofSeconds(10));
            clients.add(client);
            counters.add(RequestCounter.attachTo(client));
            List<JobCoordinator> ofInstance = new ArrayList<>();
            // Started together, as many jobs start in a service: one after another, thousands take minutes.
            ShardedJobs starting = new ShardedJobs();
            for (int j = 0; j < jobs; j++) {
                JobCoordinator coordinator = JobCoordinator.builder(client, job("job" + j, items, shape.failover()))
                        .instanceId("i" + i)
                        .scheduler(coordination)
                        .reconcileInterval(RECONCILE)
                        .ledgerRetention(RETENTION)
                        .schedule(everyPeriod)
                        .job(
                                context -> runs.merge(
                                        context.jobName() + "/" + context.fireTime() + "/" + context.item(),
                                        1,
                                        Integer::sum),
                                pool)
                        .build();
                starting.add(coordinator);
                ofInstance.add(coordinator);
            }
            starting.startAll();
            started.add(starting);
            coordinators.add(ofInstance);
        }
        // One condition over every job: a wait per job polls at least once each, minutes for thousands of jobs.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60).plusMillis(jobs * 20L))
                .until(() -> coordinators.stream()
                        .allMatch(ofInstance -> ofInstance.stream()
                                .allMatch(coordinator -> coordinator
                                                .assignment()
                                                .itemsByInstance()
                                                .size()
                                        == instances)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        firstFire.set(first);
        Counts before = sum(counters);
        Map<String, Integer> skipped = new TreeMap<>();
        long start = System.nanoTime() + Duration.between(Instant.now(), first).toNanos();
        for (int fire = 0; fire < FIRES; fire++) {
            Instant fireTime = first.plus(PERIOD.multipliedBy(fire));
            long due = start + PERIOD.multipliedBy(fire).toNanos();
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            List<CompletableFuture<FireReport>> reports = new ArrayList<>();
            coordinators.forEach(ofInstance -> ofInstance.forEach(coordinator -> reports.add(
                    CompletableFuture.supplyAsync(() -> coordinator.fireAsync(ExecutionSource.NORMAL, fireTime), firing)
                            .thenCompose(handedOver -> handedOver))));
            for (CompletableFuture<FireReport> each : reports) {
                FireReport fired = each.join();
                fired.skipped().forEach((item, reason) -> skipped.merge(reason, 1, Integer::sum));
            }
        }
        org.awaitility.Awaitility.await("every item of every fire run; skipped by the hand-over: " + skipped)
                .atMost(RECONCILE.multipliedBy(3).plusSeconds(10))
                .until(() -> runs.size() == FIRES * jobs * items);
        Counts used = sum(counters).since(before);
        assertThat(runs)
                .as("items run more than once")
                .allSatisfy((run, times) -> assertThat(times).isEqualTo(1));
        double jobFires = FIRES * (double) jobs * instances;
        report.row(
                instances,
                jobs,
                items,
                shape.failover() ? "on" : "off",
                used.ledger().total() / jobFires,
                (used.total() - used.ledger().total()) / jobFires,
                used.total() / jobFires,
                used.total() / (FIRES * (double) jobs * items));
        System.out.printf(
                Locale.ROOT,
                "[traffic] instances=%d jobs=%d items=%d failover=%s requests: %s%n",
                instances,
                jobs,
                items,
                shape.failover(),
                used);
        started.parallelStream().forEach(ShardedJobs::close);
        clients.forEach(CuratorFramework::close);
        pool.shutdownNow();
        firing.shutdownNow();
        coordination.shutdownNow();
    }

    /** One case: instances x jobs x items, with failover on or off (the default configuration). */
    private record Case(int instances, int jobs, int items, boolean failover) {

        /** {@code 3x1x10} with failover on, {@code 3x1x10:off} with it off. */
        static Case parse(String shape) {
            String[] setting = shape.trim().split(":");
            String[] parts = setting[0].split("x");
            return new Case(
                    Integer.parseInt(parts[0]),
                    Integer.parseInt(parts[1]),
                    Integer.parseInt(parts[2]),
                    setting.length == 1 || !setting[1].equals("off"));
        }
    }

    /**
     * The cases measured: every case by default, or those {@code -Dtraffic.cases} lists (for example {@code
     * 1x100x1,3x100x1:off}). Failover off is the default configuration: each run writes its start once it has a
     * thread, where with failover on the claims made ahead of a fire carry their starts.
     */
    private static List<Case> cases() {
        String asked = System.getProperty(
                "traffic.cases", "1x10x10,1x1x1000,3x1x10,3x1x1000,1x100x1,3x100x1,1x10x10:off,3x1x10:off,1x100x1:off");
        List<Case> cases = new ArrayList<>();
        for (String shape : asked.split(",")) {
            cases.add(Case.parse(shape));
        }
        return cases;
    }

    private static JobConfiguration job(String name, int items, boolean failover) {
        return JobConfiguration.builder(name)
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(items)
                .failover(failover)
                .build();
    }

    private static Counts sum(List<RequestCounter> counters) {
        Counts sum = Counts.NONE;
        for (RequestCounter counter : counters) {
            sum = sum.plus(counter.counts());
        }
        return sum;
    }
}
