package io.shardingjob.sample.e2e;

import static io.shardingjob.sample.e2e.Drills.SETTLEMENT;
import static io.shardingjob.sample.e2e.Drills.assertCompleteAssignment;
import static io.shardingjob.sample.e2e.Drills.completeFires;
import static io.shardingjob.sample.e2e.Drills.executions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import io.shardingjob.core.testing.ZooKeeperServers.Server;
import io.shardingjob.sample.e2e.ShardingJson.Execution;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Drill 5: a three-server ZooKeeper ensemble ({@code QuorumPeerMain} processes) under two copies of the application;
 * the ZooKeeper leader is killed with SIGKILL. The jobs keep running and no item ever runs twice at the same time.
 */
class ZooKeeperEnsembleIT {

    private static final String SUITE = "ensemble";

    private static final Duration GENEROUS = Duration.ofSeconds(90);

    private final ProcessGroup processes = new ProcessGroup();

    @AfterEach
    void stopEverything() {
        processes.close();
    }

    /**
     * A fire every 5 s whose regions take 2 s, so that there are 3 s between fires in which the ZooKeeper leader can
     * be killed while no item runs.
     */
    private static final List<String> JOBS = List.of(
            "sharding.zookeeper.session-timeout=4s",
            "sharding.jobs.orderSettlement.cron=*/5 * * * * *",
            "sharding.jobs.warehouseStock.cron=0 0 0 1 1 *",
            "sample.report-export.enabled=false",
            "sample.settlement-export.enabled=false",
            "sample.settlement-duration=2s");

    @Test
    void jobsKeepRunningWithoutOverlapWhenTheZooKeeperLeaderDiesBetweenFires() {
        killTheZooKeeperLeader(false);
    }

    /**
     * The copies whose connection drops for a third of the session timeout interrupt their running items and hand
     * them to failover; once reconnected (same session, no reshard) later fires must run them again as usual.
     */
    @Test
    void jobsKeepRunningWithoutOverlapWhenTheZooKeeperLeaderDiesWhileItemsRun() {
        killTheZooKeeperLeader(true);
    }

    private void killTheZooKeeperLeader(boolean whileItemsRun) {
        Instant start = Instant.now();
        // Each drill gets fresh data directories: an ensemble restored from another drill's snapshot would carry its
        // sessions and state along.
        String suite = SUITE + (whileItemsRun ? "-while-items-run" : "-between-fires");
        List<Server> ensemble = ZooKeeperServers.ensemble(processes, suite, 3);
        String connectString = ZooKeeperServers.connectString(ensemble);
        List<SampleApp> apps = new ArrayList<>();
        for (int n = 1; n <= 2; n++) {
            apps.add(SampleApp.start(processes, suite, "ensemble-app-" + n, connectString, JOBS));
        }
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(180)));
        await("a complete assignment")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertCompleteAssignment(apps, SETTLEMENT, 4));
        Instant stableSince = Instant.now();
        await("two complete fires before the failure")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(completeFires(executions(apps, SETTLEMENT), stableSince, 4))
                        .hasSizeGreaterThanOrEqualTo(2));

        Server leader = ensemble.stream()
                .filter(server -> server.mode().equals(Optional.of("leader")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ZooKeeper leader"));
        List<Server> remaining =
                ensemble.stream().filter(server -> server != leader).toList();
        // Catch a fire: items marked running; then, between fires, right after they all ended.
        await("items running")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> apps.get(0).job(SETTLEMENT).items().stream().anyMatch(ShardingJson.Item::running));
        if (!whileItemsRun) {
            await("every item ended")
                    .atMost(GENEROUS)
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> apps.get(0).job(SETTLEMENT).items().stream().noneMatch(ShardingJson.Item::running));
        }
        Instant killedAt = Instant.now();
        ProcessGroup.kill(leader.process());

        AtomicReference<Server> newLeader = new AtomicReference<>();
        await("a new ZooKeeper leader")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    remaining.stream()
                            .filter(server -> server.mode().equals(Optional.of("leader")))
                            .findFirst()
                            .ifPresent(newLeader::set);
                    return newLeader.get() != null;
                });
        long electedAfter = Timings.millisSince(killedAt);

        AtomicReference<List<Instant>> firesAfter = new AtomicReference<>();
        await("three complete fires after the leader died")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    firesAfter.set(completeFires(executions(apps, SETTLEMENT), killedAt, 4));
                    assertThat(firesAfter.get()).hasSizeGreaterThanOrEqualTo(3);
                });
        long firstFireAfter =
                Duration.between(killedAt, firesAfter.get().get(0)).toMillis();
        await("a complete assignment after the failure")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertCompleteAssignment(apps, SETTLEMENT, 4));

        List<Execution> all = executions(apps, SETTLEMENT);
        assertThat(Drills.overlappingRuns(all))
                .as("runs of one item that overlapped")
                .isEmpty();
        long firesMissed =
                Drills.byFire(all, killedAt).headMap(firesAfter.get().get(0)).size();
        long extraRuns = all.stream()
                        .filter(run -> run.fireTime().isAfter(killedAt))
                        .map(run -> run.fireTime() + "/" + run.item())
                        .count()
                - all.stream()
                        .filter(run -> run.fireTime().isAfter(killedAt))
                        .map(run -> run.fireTime() + "/" + run.item())
                        .distinct()
                        .count();
        Timings.report(
                "drill 5 (ensemble)",
                (whileItemsRun ? "while items ran, " : "between fires, ") + "killed ZooKeeper leader " + leader.id()
                        + "; server "
                        + newLeader.get().id() + " led after "
                        + electedAfter + " ms; first complete fire " + firstFireAfter + " ms after the kill ("
                        + firesMissed + " incomplete fire(s) in between); " + all.size()
                        + " item runs on both copies, none overlapping another run of its item; " + extraRuns
                        + " extra run(s) of an item of one fire; sources of the runs started after the kill "
                        + all.stream()
                                .filter(run -> run.start().isAfter(killedAt))
                                .collect(java.util.stream.Collectors.groupingBy(
                                        Execution::source,
                                        java.util.TreeMap::new,
                                        java.util.stream.Collectors.counting()))
                        + "; drill took " + Timings.millisSince(start) + " ms");
    }
}
