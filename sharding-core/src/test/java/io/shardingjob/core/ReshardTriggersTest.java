package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.registry.JobNodes;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.sharding.strategy.AverageAllocationStrategy;
import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The reshard flag's triggers and the fire path's wait for a pending reshard. */
class ReshardTriggersTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static final JobNodes NODES = new JobNodes("settle");

    private final Gate gate = new Gate();

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
                .build();
        Instance instance = new Instance(client, coordinator);
        coordinator.start();
        return instance;
    }

    @Test
    void aFireWaitsForAPendingReshardAndRunsItselfIfItBecomesLeader() throws Exception {
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

            CompletableFuture<FireReport> fire =
                    CompletableFuture.supplyAsync(() -> b.coordinator().fire(c -> {}));
            await().atMost(WITHIN).until(() -> b.coordinator().isReshardPending());
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

    /** Average allocation that can be held shut, to keep a leader in the middle of a reshard. */
    private static final class Gate implements ShardingStrategy {

        private final AtomicBoolean closed = new AtomicBoolean();

        private final CountDownLatch released = new CountDownLatch(1);

        private volatile boolean blockedCaller;

        private volatile int calls;

        @Override
        public String name() {
            return "gate";
        }

        @Override
        public Map<String, List<Integer>> shard(ShardingRequest request) {
            calls++;
            if (closed.get() && request.instances().contains("a")) {
                blockedCaller = true;
                try {
                    released.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return new AverageAllocationStrategy().shard(request);
        }

        void close() {
            closed.set(true);
        }

        void open() {
            closed.set(false);
            released.countDown();
        }

        boolean hasBlockedCaller() {
            return blockedCaller;
        }

        int calls() {
            return calls;
        }
    }
}
