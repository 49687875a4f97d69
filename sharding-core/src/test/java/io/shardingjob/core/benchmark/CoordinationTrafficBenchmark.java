package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.benchmark.BenchmarkCluster.Member;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper requests per fire in steady state: three instances fire a job of ten items together, many times, with
 * running marks and failover off and on. The requests a fire sends itself (in the foreground, on the fire's thread)
 * are told apart from those the other instances' caches send in the background to follow the marks.
 */
class CoordinationTrafficBenchmark {

    private static final int INSTANCES = 3;

    private static final int ITEMS = 10;

    private static final int FIRES = 100;

    @Test
    void countsTheZooKeeperRequestsOfEachFire() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Steady-state coordination traffic",
                "Three instances (one Curator client each) fire a job of " + ITEMS + " trivial items together, "
                        + FIRES + " times; requests counted on every client, including the caches catching up"
                        + " afterwards. A fire's own requests are those its thread waits for; cache requests run in"
                        + " the background and never delay an item.");
        report.table(
                "monitorExecution",
                "failover",
                "fire's own reads per fire",
                "fire's own writes per fire per instance",
                "cache reads per fire (all instances)",
                "all requests per fire",
                "all requests per item");
        try (BenchmarkCluster cluster = new BenchmarkCluster("traffic")) {
            measure(cluster, report, false, false);
            measure(cluster, report, true, false);
            measure(cluster, report, true, true);
        }
        report.note("Goal: zero reads per fire, and a small constant number of writes per fire per instance rather"
                + " than per item. Anchor (ElasticJob-Lite 3.0.4): 126 requests per fire of 10 items (12.6 per item),"
                + " sent one after another. With running marks on, each instance marks its items of a fire in one"
                + " multi-operation and removes the marks of items that complete together in one more; every other"
                + " instance's cache then reads each new mark once, in the background.");
        report.write();
    }

    private void measure(BenchmarkCluster cluster, BenchmarkReport report, boolean monitor, boolean failover)
            throws Exception {
        String namespace = "traffic-" + monitor + "-" + failover;
        JobConfiguration job = JobConfiguration.builder("traffic")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(ITEMS)
                .monitorExecution(monitor)
                .failover(failover)
                .build();
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            Member member = cluster.member(namespace, "i" + i, job, context -> {}, 8, result -> {}, b -> b);
            member.coordinator().start();
            members.add(member);
        }
        BenchmarkCluster.awaitAllOwned(members, ITEMS);
        cluster.awaitQuiet(members);
        Counts before = cluster.requests(members);
        int ran = 0;
        for (int fire = 0; fire < FIRES; fire++) {
            Instant fireTime = Instant.now();
            List<CompletableFuture<FireReport>> fires = cluster.fireAll(members, fireTime);
            for (CompletableFuture<FireReport> each : fires) {
                ran += each.join().items().size();
            }
        }
        cluster.awaitQuiet(members);
        Counts used = cluster.requests(members).since(before);
        assertThat(ran).as("items run").isEqualTo(FIRES * ITEMS);
        Counts own = used.foreground();
        report.row(
                monitor ? "on" : "off",
                failover ? "on" : "off",
                own.reads() / (double) FIRES,
                own.writes() / (double) FIRES / INSTANCES,
                used.background().reads() / (double) FIRES,
                used.total() / (double) FIRES,
                used.total() / (double) (FIRES * ITEMS));
        System.out.printf(Locale.ROOT, "[traffic] monitor=%s failover=%s requests: %s%n", monitor, failover, used);
        members.parallelStream().forEach(Member::leave);
    }
}
