package io.shardingjob.core.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.testing.BenchmarkReport;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * How many znodes the fire ledger holds as fires go by: one instance runs 10,000 fires of a 10-item job, one simulated
 * second apart and ending now, while the leader retires settled fires older than the retention (one minute). The
 * ledger must stay bounded by the retention, not grow with the fires.
 */
class LedgerSizeBenchmark {

    private static final int FIRES = 10_000;

    private static final int ITEMS = 10;

    @Test
    void countsTheLedgersZnodesAfterTenThousandFires() throws Exception {
        BenchmarkReport report = new BenchmarkReport(
                "Fire ledger size",
                "One instance fires a job of " + ITEMS + " trivial items " + FIRES + " times, back to back, with fire"
                        + " times one second apart ending now; the leader's upkeep runs every 100 ms and keeps settled"
                        + " fires for one minute. Znodes under /.ledger/{job} counted every 1,000 fires and at the end.");
        report.table("fires so far", "fires in the ledger", "znodes in the ledger", "seconds so far");
        try (BenchmarkCluster cluster = new BenchmarkCluster("ledger-size")) {
            CuratorFramework client = cluster.client("ledger-size", Duration.ofSeconds(10));
            ExecutorService pool = Executors.newFixedThreadPool(8);
            JobCoordinator coordinator = JobCoordinator.builder(
                            client,
                            JobConfiguration.builder("sized")
                                    .cron("* * * * * *")
                                    .shardingTotalCount(ITEMS)
                                    .failover(true)
                                    .build())
                    .instanceId("only")
                    .reconcileInterval(Duration.ofMillis(100))
                    .job(context -> {}, pool)
                    .build();
            coordinator.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> coordinator.localItems().size() == ITEMS);
            Instant last = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            long start = System.nanoTime();
            int maxZnodes = 0;
            for (int fire = 1; fire <= FIRES; fire++) {
                coordinator.fire(ExecutionSource.NORMAL, last.minusSeconds(FIRES - fire));
                if (fire % 1_000 == 0) {
                    int[] size = size(client);
                    maxZnodes = Math.max(maxZnodes, size[1]);
                    report.row(fire, size[0], size[1], (System.nanoTime() - start) / 1e9);
                }
            }
            // The upkeep catches up: every settled fire older than the retention goes.
            await().atMost(Duration.ofSeconds(120)).until(() -> size(client)[0] <= 70);
            int[] end = size(client);
            report.row("after upkeep", end[0], end[1], (System.nanoTime() - start) / 1e9);
            System.out.printf(
                    Locale.ROOT,
                    "[ledger-size] after %d fires: %d fires and %d znodes in the ledger (at most %d seen)%n",
                    FIRES,
                    end[0],
                    end[1],
                    maxZnodes);
            assertThat(end[1]).isLessThanOrEqualTo(70 * (ITEMS + 1) + 1);
            coordinator.close();
            pool.shutdownNow();
        }
        report.note("Goal (issue 12): a bounded number of znodes after 10,000 fires, whatever the number of fires.");
        report.write();
    }

    /** The number of fire nodes and of all znodes (fires, claims and the ledger node itself) under the ledger. */
    private static int[] size(CuratorFramework client) throws Exception {
        List<String> fires = client.getChildren().forPath("/.ledger/sized");
        int znodes = 1 + fires.size();
        for (String fire : fires) {
            // Null when the upkeep retired the fire since it was listed: it then holds nothing.
            Stat stat = client.checkExists().forPath("/.ledger/sized/" + fire);
            znodes += stat == null ? -1 : stat.getNumChildren();
        }
        return new int[] {fires.size(), znodes};
    }
}
