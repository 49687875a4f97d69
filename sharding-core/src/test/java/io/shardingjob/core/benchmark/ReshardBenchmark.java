package io.shardingjob.core.benchmark;

import static io.shardingjob.core.benchmark.BenchmarkCluster.millisSince;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.benchmark.BenchmarkCluster.Member;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Reshard latency and cost: an instance joins a running cluster, then leaves it cleanly. Timed from the newcomer's
 * {@code start()} to the moment every instance sees the same assignment that gives every item an owner and the newcomer
 * its share, and to the newcomer's first item of a fire it was asked for the moment it started. ZooKeeper requests are
 * counted on every client: the leader's (the reshard itself), the others' (their caches following the change) and the
 * newcomer's own start.
 */
class ReshardBenchmark {

    private static final int[] ITEMS = {9, 100, JobConfiguration.MAX_SHARDING_TOTAL_COUNT};

    private static final int[] INSTANCES = {3, 10, 50};

    @Test
    void measuresReshardLatencyAndRequestsForEachClusterSize() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Reshard latency and ZooKeeper requests",
                "An instance joins a cluster of n-1 running instances, then leaves it cleanly (one Curator client per"
                        + " instance, 5 s sessions, one ZooKeeper server process on loopback). *all owners*: from"
                        + " the newcomer's start() to every instance seeing the new assignment. *first item*: from its"
                        + " start() to its first item of a fire asked for at once. Requests are counted on every"
                        + " client while the reshard settles.");
        report.table(
                "items",
                "instances",
                "join: all owners ms",
                "join: first item ms",
                "join: leader requests",
                "join: requests per other instance",
                "newcomer start requests",
                "leave: all owners ms",
                "leave: leader requests",
                "leave: requests per other instance");
        try (BenchmarkCluster cluster = new BenchmarkCluster("reshard")) {
            for (int instances : INSTANCES) {
                for (int items : ITEMS) {
                    measure(cluster, report, items, instances);
                }
            }
        }
        report.note("Goal: a constant number of ZooKeeper round trips per reshard whatever the item count. Anchor"
                + " (ElasticJob-Lite 3.0.4, same kind of machine): a newcomer's first item 1.9 s after its process"
                + " started, 0.3-0.45 s after it was ready, at 9 and 100 items.");
        report.write();
    }

    private void measure(BenchmarkCluster cluster, BenchmarkReport report, int items, int instances) throws Exception {
        String namespace = "reshard-" + items + "-" + instances;
        JobConfiguration job = JobConfiguration.builder("reshard")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(items)
                // Without running marks, so that the counts are the reshard's alone; a fire's own cost is measured
                // by the coordination traffic benchmark.
                .monitorExecution(false)
                .build();
        List<Member> running = new ArrayList<>();
        for (int i = 0; i < instances - 1; i++) {
            Member member = cluster.member(namespace, "i" + i, job, context -> {}, 4, result -> {}, builder -> builder);
            member.coordinator().start();
            running.add(member);
        }
        BenchmarkCluster.awaitAllOwned(running, items);
        cluster.awaitQuiet(running);

        AtomicLong firstItem = new AtomicLong();
        Member newcomer = cluster.member(
                namespace,
                "newcomer",
                job,
                context -> firstItem.compareAndSet(0, System.nanoTime()),
                4,
                result -> {},
                builder -> builder);
        List<Member> all = new ArrayList<>(running);
        all.add(newcomer);
        Counts before = cluster.requests(running);
        Counts leaderBefore = BenchmarkCluster.leader(running).requests().counts();
        long joining = System.nanoTime();
        newcomer.coordinator().start();
        CompletableFuture<FireReport> fire =
                CompletableFuture.supplyAsync(() -> newcomer.coordinator().fire(ExecutionSource.NORMAL, Instant.now()));
        BenchmarkCluster.awaitAllOwned(all, items);
        long owned = System.nanoTime();
        FireReport firstFire = fire.join();
        boolean newcomerOwnsItems =
                !newcomer.coordinator().assignment().itemsOf(newcomer.id()).isEmpty();
        // With more instances than items some own none; whoever owns some runs them on its first fire.
        assertThat(firstFire.items().isEmpty())
                .as("the newcomer's first fire ran nothing")
                .isEqualTo(!newcomerOwnsItems);
        cluster.awaitQuiet(all);
        Member leader = BenchmarkCluster.leader(all);
        Counts joinLeader = leader.requests().counts().since(leaderBefore);
        Counts joinOthers = cluster.requests(running).since(before).since(joinLeader);
        Counts newcomerStart = newcomer.requests().counts();

        Counts beforeLeave = cluster.requests(running);
        Counts leaderBeforeLeave = leader.requests().counts();
        long leaving = System.nanoTime();
        newcomer.leave();
        BenchmarkCluster.awaitAllOwned(running, items);
        long left = System.nanoTime();
        cluster.awaitQuiet(running);
        Counts leaveLeader = leader.requests().counts().since(leaderBeforeLeave);
        Counts leaveOthers = cluster.requests(running).since(beforeLeave).since(leaveLeader);

        report.row(
                items,
                instances,
                millisSince(joining, owned),
                newcomerOwnsItems ? millisSince(joining, firstItem.get()) : "owns none",
                describe(joinLeader),
                perInstance(joinOthers, instances - 2),
                describe(newcomerStart),
                millisSince(leaving, left),
                describe(leaveLeader),
                perInstance(leaveOthers, instances - 2));
        running.parallelStream().forEach(Member::leave);
    }

    private static String describe(Counts counts) {
        return counts.total() + " (" + counts.reads() + " r, " + counts.writes() + " w)";
    }

    private static String perInstance(Counts counts, int instances) {
        if (instances <= 0) {
            return "-";
        }
        return String.format(
                java.util.Locale.ROOT,
                "%.1f (%.1f r, %.1f w)",
                counts.total() / (double) instances,
                counts.reads() / (double) instances,
                counts.writes() / (double) instances);
    }
}
