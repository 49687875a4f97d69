package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.benchmark.BenchmarkCluster.Member;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.testing.BenchmarkReport;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Item executions per second: one instance firing a job of trivial items back to back, and three instances running
 * a job of 1,000 items of 10 ms every second, as the goal and the anchor's overrun describe.
 */
class ThroughputBenchmark {

    private static final Duration WARM_UP = Duration.ofSeconds(Long.getLong("throughput.warm-up-seconds", 10));

    @Test
    void measuresItemsPerSecondAndWhetherOneThousandItemsAFitInEachSecond() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Throughput",
                "Trivial items on one instance (a pool of 8 threads), fires of 1,000 items back to back for 10 s"
                        + " after as many seconds of the same fires untimed (the JIT's warm-up), the ledger's retention 2 s"
                        + " and its keeper's pass every second (retirement keeps up: its deletions are in the figure);"
                        + " then 1,000 items of 10 ms fired every second for 20 s across three instances (16 item"
                        + " threads each), the fire ledger and failover on.");
        try (BenchmarkCluster cluster = new BenchmarkCluster("throughput")) {
            report.table("monitorExecution", "failover", "items per second", "fires", "ZooKeeper requests per fire");
            // Every fire claims its items in the ledger whatever monitorExecution says: one row is the whole story.
            trivialItems(cluster, report, true, true);
            report.table(
                    "fires",
                    "fires with all 1,000 items",
                    "fire duration p50 ms",
                    "fire duration max ms",
                    "overruns (> 1 s)",
                    "items missed");
            everySecond(cluster, report);
        }
        report.note(
                "Goals: 20,000 trivial items per second on one instance with the ledger on (2,600 with running marks"
                        + " before it), and 1,000 items of 10 ms per second across 3 instances without overrun. Anchor"
                        + " (ElasticJob-Lite 3.0.4): at 100 items per second a 1 s fire already overran at times, and at 1,000"
                        + " items of 10 ms per second across 3 instances it never reached one clean fire.");
        report.write();
    }

    private void trivialItems(BenchmarkCluster cluster, BenchmarkReport report, boolean monitor, boolean failover)
            throws Exception {
        JobConfiguration job = JobConfiguration.builder("throughput")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(1_000)
                .monitorExecution(monitor)
                .failover(failover)
                .build();
        AtomicLong executed = new AtomicLong();
        Member member = cluster.member(
                "throughput-" + monitor + "-" + failover,
                "one",
                job,
                context -> executed.incrementAndGet(),
                8,
                result -> {},
                // Fired back to back, the job runs some 40,000 items a second, and the ledger holds a node per item
                // for the retention and until the keeper's next pass: with the default minute and 10 s, millions of
                // nodes, more than the server's heap holds. As a service with such a job would, retention is short.
                b -> b.ledgerRetention(Duration.ofSeconds(2)).reconcileInterval(Duration.ofSeconds(1)));
        member.coordinator().start();
        BenchmarkCluster.awaitAllOwned(List.of(member), 1_000);
        // Warm-up: the JIT compiles the fire path before it is timed. A fire's own path (planning, merging its claims
        // and ends) runs once a fire: a few fires leave it interpreted, so the warm-up lasts as long as the timing.
        long warmUpEnd = System.nanoTime() + WARM_UP.toNanos();
        while (System.nanoTime() < warmUpEnd) {
            member.coordinator().fire(ExecutionSource.NORMAL, Instant.now());
        }
        Counts before = member.requests().counts();
        executed.set(0);
        long start = System.nanoTime();
        long end = start + Duration.ofSeconds(10).toNanos();
        int fires = 0;
        while (System.nanoTime() < end) {
            FireReport fire = member.coordinator().fire(ExecutionSource.NORMAL, Instant.now());
            assertThat(fire.items()).hasSize(1_000);
            fires++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Counts used = member.requests().counts().since(before);
        report.row(
                monitor ? "on" : "off",
                failover ? "on" : "off",
                executed.get() / seconds,
                fires,
                used.total() / (double) fires);
        member.leave();
    }

    private void everySecond(BenchmarkCluster cluster, BenchmarkReport report) throws Exception {
        JobConfiguration job = JobConfiguration.builder("every-second")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(1_000)
                .failover(true)
                .build();
        Map<Instant, AtomicInteger> completedPerFire = new ConcurrentHashMap<>();
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Member member = cluster.member(
                    "every-second",
                    "i" + i,
                    job,
                    context -> Thread.sleep(10),
                    16,
                    result -> completedPerFire
                            .computeIfAbsent(result.fireTime(), time -> new AtomicInteger())
                            .incrementAndGet(),
                    b -> b);
            member.coordinator().start();
            members.add(member);
        }
        BenchmarkCluster.awaitAllOwned(members, 1_000);
        List<Double> durations = new ArrayList<>();
        List<CompletableFuture<Double>> fires = new ArrayList<>();
        Instant next = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        for (int second = 0; second < 20; second++) {
            Instant fireTime = next.plusSeconds(second);
            BenchmarkCluster.sleep(Duration.between(Instant.now(), fireTime));
            // Each instance's scheduler would fire on its own thread; the fire's duration is the slowest one's.
            List<CompletableFuture<FireReport>> onEach = cluster.fireAll(members, fireTime);
            fires.add(CompletableFuture.allOf(onEach.toArray(new CompletableFuture<?>[0]))
                    .thenApply(done -> Duration.between(fireTime, Instant.now()).toNanos() / 1e6));
        }
        for (CompletableFuture<Double> fire : fires) {
            durations.add(fire.join());
        }
        long clean = completedPerFire.values().stream()
                .filter(count -> count.get() == 1_000)
                .count();
        long missed = 20L * 1_000
                - completedPerFire.values().stream()
                        .mapToLong(AtomicInteger::get)
                        .sum();
        report.row(
                fires.size(),
                clean,
                BenchmarkReport.percentile(durations, 50),
                BenchmarkReport.percentile(durations, 100),
                durations.stream().filter(duration -> duration > 1_000).count(),
                missed);
        members.parallelStream().forEach(Member::leave);
    }
}
