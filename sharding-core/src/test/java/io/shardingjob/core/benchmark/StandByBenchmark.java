package io.shardingjob.core.benchmark;

import static io.shardingjob.core.benchmark.BenchmarkCluster.millisSince;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.ShardedJobs;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * What the readiness hand-off costs at fleet scale: N jobs on one Curator client (as the starter runs them) stand by
 * and resume, each called on one thread one job after another, as the starter's readiness listener calls them. Timed:
 * until the calls returned (how long the thread that published the readiness is held), until every job's cache shows
 * the leaving mark made (or gone), and until every job's item was taken from this instance (or given back) by a
 * reshard.
 *
 * <p>The job counts come from {@code -Dstandby.jobs=10,100,1000} (the default).
 */
class StandByBenchmark {

    private static final String SOLO = SoloJobs.INSTANCE;

    @Test
    void measuresStandingByAndResumingManyJobsOnOneClient() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Standing by and resuming many jobs on one instance",
                "N jobs (one item each, a cron that does not fire during the run) on one Curator client with a shared"
                        + " coordination pool of 4 threads, one ZooKeeper server process on loopback. The jobs stand by,"
                        + " then resume, standBy() and resume() called for every job in turn on one thread. *calls"
                        + " ms*: until the last call returned; *marked ms*: until every job's cache shows the mark made"
                        + " (gone, on resume); *handed over ms*: until no job's assignment gives this instance its"
                        + " item (every job's does again, on resume). Requests are counted on the client from the"
                        + " first call until no request was sent for 300 ms.");
        report.table(
                "jobs",
                "stand by: calls ms",
                "marked ms",
                "handed over ms",
                "requests per job",
                "resume: calls ms",
                "unmarked ms",
                "owned again ms",
                "requests per job");
        int[] counts = Arrays.stream(
                        System.getProperty("standby.jobs", "10,100,1000").split(","))
                .mapToInt(count -> Integer.parseInt(count.trim()))
                .toArray();
        try (BenchmarkCluster cluster = new BenchmarkCluster("standby")) {
            for (int jobs : counts) {
                measure(cluster, report, jobs);
            }
        }
        report.note("Goal: standing by does not hold the readiness publisher for a round trip per job, and the marks of"
                + " many jobs are written together. Timings were taken on a shared two-core machine.");
        report.write();
    }

    private void measure(BenchmarkCluster cluster, BenchmarkReport report, int count) throws Exception {
        CuratorFramework client = cluster.client("standby-" + count, Duration.ofSeconds(30));
        RequestCounter requests = RequestCounter.attachTo(client);
        ScheduledExecutorService coordination = Executors.newScheduledThreadPool(4);
        ExecutorService items = Executors.newFixedThreadPool(4);
        ShardedJobs jobs = SoloJobs.of(client, count, coordination, items);
        try {
            List<JobCoordinator> all = new ArrayList<>(jobs.all());
            jobs.startAll();
            SoloJobs.awaitEvery(all, StandByBenchmark::owned, Duration.ofMinutes(5));
            requests.awaitQuiet(Duration.ofMillis(300));

            Counts beforeStandBy = requests.counts();
            long standingBy = System.nanoTime();
            all.forEach(JobCoordinator::standBy);
            long standByReturned = System.nanoTime();
            SoloJobs.awaitEvery(all, job -> job.leavingInstances().contains(SOLO), Duration.ofMinutes(5));
            long marked = System.nanoTime();
            SoloJobs.awaitEvery(all, job -> job.assignment().itemsOf(SOLO).isEmpty(), Duration.ofMinutes(5));
            long handedOver = System.nanoTime();
            requests.awaitQuiet(Duration.ofMillis(300));
            Counts standBy = requests.counts().since(beforeStandBy);

            Counts beforeResume = requests.counts();
            long resuming = System.nanoTime();
            all.forEach(JobCoordinator::resume);
            long resumeReturned = System.nanoTime();
            SoloJobs.awaitEvery(all, job -> job.leavingInstances().isEmpty(), Duration.ofMinutes(5));
            long unmarked = System.nanoTime();
            SoloJobs.awaitEvery(all, StandByBenchmark::owned, Duration.ofMinutes(5));
            long ownedAgain = System.nanoTime();
            requests.awaitQuiet(Duration.ofMillis(300));
            Counts resume = requests.counts().since(beforeResume);

            printByOperation(count, "stand by", standBy);
            printByOperation(count, "resume", resume);
            report.row(
                    count,
                    millisSince(standingBy, standByReturned),
                    millisSince(standingBy, marked),
                    millisSince(standingBy, handedOver),
                    standBy.total() / (double) count,
                    millisSince(resuming, resumeReturned),
                    millisSince(resuming, unmarked),
                    millisSince(resuming, ownedAgain),
                    resume.total() / (double) count);
        } finally {
            jobs.all().parallelStream().forEach(JobCoordinator::close);
            client.close();
            coordination.shutdownNow();
            items.shutdownNow();
        }
    }

    /** What the requests were, per job: where a figure differs between two versions, this says why. */
    private static void printByOperation(int count, String phase, Counts counts) {
        counts.byOperation()
                .forEach((operation, sent) -> System.out.printf(
                        Locale.ROOT,
                        "[standby] %d jobs, %s: %s %.2f per job%n",
                        count,
                        phase,
                        operation,
                        sent / (double) count));
    }

    private static boolean owned(JobCoordinator job) {
        return !job.isReshardPending() && job.assignment().itemsOf(SOLO).size() == 1;
    }
}
