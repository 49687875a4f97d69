package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * How many jobs times instances one three-server ensemble on this machine carries with fire delays under
 * {@value #DELAY_BOUND_MS} ms at the 99th percentile, and what they send it: a sweep over {@link CapacityCell}s, for each
 * number of instances the job counts in ascending order until one's p99 passes the bound. Three ZooKeeper processes on
 * loopback, with the instances' clients in this JVM, all on the same cores: the servers' CPU is the clients' too.
 * Asserts only the promise: every item of every fire ran, once, never two runs of an item at once.
 *
 * <p>System properties enlarge it: {@code benchmark.capacity.instances} (default {@code 2,3}),
 * {@code benchmark.capacity.jobs} ({@code 10,25,50,100,200}), {@code benchmark.capacity.items} (2),
 * {@code benchmark.capacity.period-ms} (1000), {@code benchmark.capacity.fires} (measured fires per cell, 8, after 3
 * warm-up fires), {@code benchmark.capacity.whole} (true: every cell, also past the first over the bound).
 */
class CapacityBenchmark {

    private static final double DELAY_BOUND_MS = 50;

    private static final String PREFIX = "benchmark.capacity.";

    @Test
    void findsTheJobsTimesInstancesAThreeServerEnsembleCarriesWithFireDelaysUnderFiftyMilliseconds() throws Exception {
        List<Integer> instanceCounts = integers("instances", "2,3");
        List<Integer> jobCounts = integers("jobs", "10,25,50,100,200");
        int items = Integer.getInteger(PREFIX + "items", 2);
        Duration period = Duration.ofMillis(Long.getLong(PREFIX + "period-ms", 1_000));
        int fires = Integer.getInteger(PREFIX + "fires", 8);
        boolean whole = Boolean.getBoolean(PREFIX + "whole");

        BenchmarkReport report = new BenchmarkReport(
                "Capacity of a three-server ensemble",
                "Three ZooKeeper servers (QuorumPeerMain, each its own JVM, -Xmx384m, fsync on) on loopback; each"
                        + " instance its own Curator client on the whole connect string and the starter's default"
                        + " threads (16 item, 8 fire, 2 coordination threads and a scheduler); every instance runs"
                        + " every job, every job (" + items + " items) is due every " + period.toMillis()
                        + " ms, all at the same instant, and the coordinators know the schedule (claims ahead). 3"
                        + " warm-up fires, then " + fires
                        + " measured, after one unreported run of the first cell that warms"
                        + " the servers' JVMs up. Requests are counted on the clients"
                        + " (Curator's tracer, the ledger's multis included, pings not); writes are the leader's"
                        + " proposals and packets the servers' received packets (pings included), both from the"
                        + " servers' mntr, over the measured fires. Fire delay: from the fire's instant to the start"
                        + " of each of its items. The floor: the same threads and hand-overs at the same instants"
                        + " with no library and no ZooKeeper, run just before each cell, so that the machine's load"
                        + " at the time shows. The instances' clients, the servers and every other process share the"
                        + " machine's cores.");
        report.table(
                "instances",
                "jobs",
                "job fires/s",
                "start s",
                "requests/s (clients)",
                "writes/s (leader proposals)",
                "packets received/s (servers)",
                "requests per job fire",
                "writes per job fire",
                "fire delay p50 ms",
                "p99 ms",
                "max ms",
                "floor p50 / p99 ms",
                "item runs owed / ran",
                "p99 under " + (int) DELAY_BOUND_MS + " ms");
        List<String> carried = new ArrayList<>();
        List<CapacityCell.Outcome> failures = new ArrayList<>();
        try (ProcessGroup processes = new ProcessGroup()) {
            List<ZooKeeperServers.Server> ensemble =
                    ZooKeeperServers.ensembleForBenchmark(processes, "benchmark/capacity", 3);
            // Fresh server JVMs answer slowly until compiled: the first cell, once, unreported, warms them up.
            CapacityCell.Outcome warmUp = new CapacityCell(
                            ensemble,
                            new CapacityCell.Shape(instanceCounts.get(0), jobCounts.get(0), items, period, 3, fires))
                    .run();
            if (warmUp.ran() != warmUp.owed() || warmUp.doubled() != 0 || warmUp.overlaps() != 0) {
                failures.add(warmUp);
            }
            for (int instances : instanceCounts) {
                String largest = "none";
                for (int jobs : jobCounts) {
                    CapacityCell.Shape shape = new CapacityCell.Shape(instances, jobs, items, period, 3, fires);
                    CapacityCell cell = new CapacityCell(ensemble, shape);
                    List<Double> floor = cell.floor();
                    CapacityCell.Outcome outcome = cell.run();
                    boolean under = outcome.p(99) < DELAY_BOUND_MS;
                    row(report, outcome, floor, under);
                    if (outcome.ran() != outcome.owed() || outcome.doubled() != 0 || outcome.overlaps() != 0) {
                        failures.add(outcome);
                    }
                    if (!under && !whole) {
                        break;
                    }
                    if (under) {
                        largest = jobs + " jobs x " + instances + " instances (" + jobs * instances + " job-instances)";
                    }
                }
                carried.add(instances + " instances: " + largest);
            }
        }
        report.note("Largest with fire delay p99 under " + (int) DELAY_BOUND_MS + " ms, per number of instances: "
                + String.join("; ", carried)
                + ". The sweep stops at the first job count over the bound (-D" + PREFIX + "whole=true runs every"
                + " cell); enlarge it with -D" + PREFIX
                + "instances=2,3,5 -D" + PREFIX + "jobs=25,50,100,200,400,800.");
        report.write();
        assertThat(failures)
                .as("cells where an owed item-fire did not run, ran twice, or overlapped a run of the same item")
                .isEmpty();
    }

    private static void row(BenchmarkReport report, CapacityCell.Outcome outcome, List<Double> floor, boolean under) {
        CapacityCell.Shape shape = outcome.shape();
        long requests = outcome.requests().total();
        long writes = outcome.serverCounters().getOrDefault("zk_proposal_count", -1L);
        long packets = outcome.serverCounters().getOrDefault("zk_packets_received", -1L);
        report.row(
                shape.instances(),
                shape.jobs(),
                shape.jobFiresPerSecond(),
                outcome.start().toMillis() / 1000.0,
                outcome.perSecond(requests),
                outcome.perSecond(writes),
                outcome.perSecond(packets),
                outcome.perJobFire(requests),
                outcome.perJobFire(writes),
                outcome.p(50),
                outcome.p(99),
                outcome.p(100),
                String.format(
                        Locale.ROOT,
                        "%.2f / %.2f",
                        BenchmarkReport.percentile(floor, 50),
                        BenchmarkReport.percentile(floor, 99)),
                outcome.owed() + " / " + outcome.ran()
                        + (outcome.doubled() + outcome.overlaps() > 0
                                ? " (" + outcome.doubled() + " doubled, " + outcome.overlaps() + " overlapping)"
                                : ""),
                under ? "yes" : "no");
        System.out.printf(Locale.ROOT, "[capacity] %s requests: %s%n", shape, outcome.requests());
    }

    private static List<Integer> integers(String property, String defaults) {
        return Arrays.stream(System.getProperty(PREFIX + property, defaults).split(","))
                .map(String::trim)
                .map(Integer::valueOf)
                .toList();
    }
}
