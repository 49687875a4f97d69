package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The reshard flag's triggers and the fire path's wait for a pending reshard. */
class ReshardTriggersTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static final JobNodes NODES = new JobNodes("settle");

    private final GateStrategy gate = new GateStrategy("a");

    private JobConfiguration job(String strategy) {
        return JobConfiguration.builder("settle")
                .cron("* * * * * *")
                .shardingTotalCount(4)
                .strategy(strategy)
                .build();
    }

    private Instance start(String id, String strategy) throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator coordinator = JobCoordinator.builder(client, job(strategy))
                .instanceId(id)
                .strategies(ShardingStrategies.defaults().with(gate))
                .reconcileInterval(Duration.ofMillis(500))
                .shardingWaitTimeout(Duration.ofSeconds(30))
                .job(context -> {}, ForkJoinPool.commonPool())
                .build();
        Instance instance = new Instance(client, coordinator);
        coordinator.start();
        return instance;
    }

    @Test
    void aFireWaitsForAPendingReshardWithoutHoldingAThreadAndRunsItselfIfItBecomesLeader() throws Exception {
        Instance a = start("a", "gate");
        Instance b = start("b", "gate");
        try {
            await().atMost(WITHIN)
                    .until(() -> b.coordinator().assignment().itemsOf("b").size() == 2
                            && !b.coordinator().isReshardPending());
            long epoch = b.coordinator().assignment().epoch();
            gate.close();
            b.coordinator().requestReshard();
            await().atMost(WITHIN).until(gate::hasBlockedCaller);

            await().atMost(WITHIN).until(() -> b.coordinator().isReshardPending());
            // The wait holds no thread (the fire threads are shared by every job): the call returns at once, and the
            // report completes once the fire could be planned.
            CompletableFuture<FireReport> fire = b.coordinator().fireAsync(ExecutionSource.NORMAL, Instant.now());
            assertThat(fire).isNotDone();

            crash(a);

            FireReport report = fire.get(15, TimeUnit.SECONDS);
            assertThat(b.coordinator().isLeader()).isTrue();
            assertThat(report.items()).containsExactly(0, 1, 2, 3);
            assertThat(report.epoch()).isGreaterThan(epoch);
        } finally {
            gate.open();
            a.coordinator().close();
            b.coordinator().close();
        }
    }

    @Test
    void theLeaderRepairsAnAssignmentThatNamesAGoneInstance() throws Exception {
        Instance a = start("a", "average");
        Instance b = start("b", "average");
        try {
            await().atMost(WITHIN)
                    .until(() -> a.coordinator().assignment().itemsByInstance().size() == 2
                            && !a.coordinator().isReshardPending());
            long epoch = a.coordinator().assignment().epoch();

            // An assignment that lost its owner (hand-edited, or left by a crash mid-way): nobody runs items 0..3.
            Assignment orphaned = new Assignment(epoch + 1, 4, Map.of("ghost", List.of(0, 1, 2, 3)));
            a.client().setData().forPath(NODES.assignment(), orphaned.encode());

            await().atMost(WITHIN).untilAsserted(() -> {
                Assignment repaired = b.coordinator().assignment();
                assertThat(repaired.epoch()).isGreaterThan(epoch + 1);
                assertThat(repaired.itemsByInstance()).containsOnlyKeys("a", "b");
            });
        } finally {
            a.coordinator().close();
            b.coordinator().close();
        }
    }

    @Test
    void aCustomStrategyIsUsedByName() throws Exception {
        Instance a = start("a", "gate");
        Instance b = start("b", "gate");
        try {
            await().atMost(WITHIN)
                    .untilAsserted(() -> assertThat(a.coordinator().assignment().itemsByInstance())
                            .containsEntry("a", List.of(0, 1))
                            .containsEntry("b", List.of(2, 3)));
            assertThat(gate.calls()).isPositive();
        } finally {
            a.coordinator().close();
            b.coordinator().close();
        }
    }
}
