package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.operation.InvalidOperationException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Operator inputs refused by the public operations on a real ZooKeeper: each refusal is an
 * {@link InvalidOperationException} naming the job, the input and the limit, nothing is written, and the application's
 * connection, which every job on it shares, carries on.
 */
class RefusedOperatorInputsTest extends ZooKeeperTestSupport {

    private static final JobConfiguration REPORTS = JobConfiguration.builder("reports")
            .cron("0 0 0 1 1 *")
            .shardingTotalCount(4)
            .jobParameter("configured")
            .build();

    private static final JobConfiguration ORDERS = JobConfiguration.builder("orders")
            .cron("0 0 0 1 1 *")
            .shardingTotalCount(2)
            .build();

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** Refuses a seconds field of 60 or more, as the starter's schedule (Spring's cron) does. */
    private static final FireSchedule SECONDS_CHECKED = new FireSchedule() {
        @Override
        public Instant nextFireAfter(JobConfiguration configuration, Instant after) {
            return null;
        }

        @Override
        public void check(JobConfiguration configuration) {
            if (Integer.parseInt(configuration.cron().split(" ")[0]) > 59) {
                throw new IllegalArgumentException("the second is outside 0..59");
            }
        }
    };

    private final ConcurrentLinkedQueue<ItemResult> results = new ConcurrentLinkedQueue<>();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Test
    void aTriggerWithATwoMegabyteJobParameterIsRefusedAndTheConnectionAndTheOtherJobCarryOn() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator reports = start(client, REPORTS);
        JobCoordinator orders = start(client, ORDERS);
        await().atMost(WITHIN)
                .until(() ->
                        reports.localItems().size() == 4 && orders.localItems().size() == 2);
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        List<String> firesBefore = client.getChildren().forPath(new JobNodes("reports").ledger());
        ConcurrentLinkedQueue<ConnectionState> states = new ConcurrentLinkedQueue<>();
        client.getConnectionStateListenable().addListener((changed, state) -> states.add(state));

        assertThatThrownBy(() -> reports.trigger("x".repeat(2 * 1024 * 1024)))
                .isInstanceOfSatisfying(InvalidOperationException.class, refused -> {
                    assertThat(refused.jobName()).isEqualTo("reports");
                    assertThat(refused.input()).isEqualTo("jobParameter");
                })
                .hasMessageContaining("'reports'")
                .hasMessageContaining("2097152 bytes")
                .hasMessageContaining(String.valueOf(JobConfiguration.MAX_JOB_PARAMETER_BYTES));

        // Nothing was recorded, and the other job on the same connection fires as before.
        assertThat(client.getChildren().forPath(new JobNodes("reports").ledger()))
                .isEqualTo(firesBefore);
        FireReport fire = orders.fire(ExecutionSource.NORMAL, Instant.now());
        assertThat(fire.succeeded()).isTrue();
        assertThat(fire.items()).containsExactly(0, 1);
        assertThat(client.getZookeeperClient().isConnected()).isTrue();
        assertThat(client.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
        assertThat(states).as("connection states after the refusal").isEmpty();
        assertThat(reports.isAvailable()).isTrue();
    }

    @Test
    void aJobParameterUnderAPacketButOverTheLedgersBoundIsRefusedAndOneWithinItRuns() throws Exception {
        JobCoordinator reports = start(newClient(), REPORTS);
        await().atMost(WITHIN).until(() -> reports.localItems().size() == 4);

        // Some 17 KiB: ZooKeeper would take it, but eight fire nodes of twice that would not fit one audit's read.
        assertThatThrownBy(() -> reports.trigger("x".repeat(17 * 1024)))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("17408 bytes");
        // Characters are not bytes: 6,000 euro signs take 18,000.
        assertThatThrownBy(() -> reports.trigger("€".repeat(6_000)))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("18000 bytes");

        String largest = "y".repeat(JobConfiguration.MAX_JOB_PARAMETER_BYTES);
        Instant fireTime = reports.trigger(largest);

        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 4);
        assertThat(runsOf(fireTime)).allSatisfy(run -> {
            assertThat(run.source()).isEqualTo(ExecutionSource.MANUAL);
            assertThat(run.context().jobParameter()).isEqualTo(largest);
        });
        assertThat(reports.ledger().recentFires(20)).isNotEmpty();
    }

    @Test
    void anItemOutsideTheJobsItemsIsRefusedAndNothingIsDisabled() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator reports = start(client, REPORTS);
        String disabledItems = new JobNodes("reports").disabledItems();

        assertThatThrownBy(() -> reports.disableItem(4))
                .isInstanceOfSatisfying(
                        InvalidOperationException.class,
                        refused -> assertThat(refused.input()).isEqualTo("item"))
                .hasMessageContaining("'reports'")
                .hasMessageContaining("item 4 is outside 0..3");
        assertThatThrownBy(() -> reports.enableItem(-1)).isInstanceOf(InvalidOperationException.class);
        assertThat(client.getChildren().forPath(disabledItems)).isEmpty();

        reports.disableItem(3);
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(reports.disabledItems()).containsExactly(3));
    }

    @Test
    void aMalformedInstanceIdIsRefusedAndAWellFormedOneNeedNotBeRegistered() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator reports = start(client, REPORTS);
        String disabledInstances = new JobNodes("reports").disabledInstances();

        assertThatThrownBy(() -> reports.disableInstance("a/../../orders"))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("instanceId");
        assertThatThrownBy(() -> reports.disableInstance("p".repeat(300)))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("300 characters");
        assertThat(client.getChildren().forPath(disabledInstances)).isEmpty();

        // The next pod of a deployment, not registered yet, may be disabled ahead of its start.
        reports.disableInstance("next-pod");
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(reports.disabledInstances()).containsExactly("next-pod"));
    }

    @Test
    void aCountOutsideItsBoundsIsRefusedWithoutTouchingTheStoredConfiguration() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator reports = start(client, REPORTS);
        Stat before = client.checkExists().forPath(new JobNodes("reports").config());

        assertThatThrownBy(() -> reports.updateShardingTotalCount(0))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("1..10000");
        assertThatThrownBy(() -> reports.updateShardingTotalCount(10_001))
                .isInstanceOf(InvalidOperationException.class);

        assertThat(client.checkExists()
                        .forPath(new JobNodes("reports").config())
                        .getVersion())
                .isEqualTo(before.getVersion());
        assertThat(reports.updateShardingTotalCount(6).shardingTotalCount()).isEqualTo(6);
    }

    @Test
    void aRunTimeJobWithACronTheScheduleCannotReadIsRefusedAndNothingIsStored() throws Exception {
        CuratorFramework client = newClient();
        JobDefinitions definitions =
                closeAfterTest(new JobDefinitions(client, new IgnoringListener(), SECONDS_CHECKED));
        definitions.start();

        JobConfiguration badCron =
                JobConfiguration.builder("export").cron("75 0 2 * * *").build();
        assertThatThrownBy(() -> definitions.define(badCron, "exporter"))
                .isInstanceOfSatisfying(
                        InvalidOperationException.class,
                        refused -> assertThat(refused.input()).isEqualTo("cron"))
                .hasMessageContaining("'export'")
                .hasMessageContaining("outside 0..59");
        assertThat(client.checkExists().forPath(new JobNodes("export").root())).isNull();
        assertThat(client.checkExists().forPath(JobNodes.definition("export"))).isNull();

        definitions.define(badCron.toBuilder().cron("15 0 2 * * *").build(), "exporter");
        assertThatThrownBy(() -> definitions.update(
                        "export",
                        current -> current.toBuilder().cron("61 0 2 * * *").build()))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("cron");
        assertThatThrownBy(() -> definitions.update(
                        "export",
                        current -> current.toBuilder()
                                .jobParameter("z".repeat(JobConfiguration.MAX_JOB_PARAMETER_BYTES + 1))
                                .build()))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("jobParameter");
        assertThat(definitions.storedConfiguration("export").cron()).isEqualTo("15 0 2 * * *");
        assertThat(definitions
                        .update(
                                "export",
                                current ->
                                        current.toBuilder().cron("30 0 2 * * *").build())
                        .cron())
                .isEqualTo("30 0 2 * * *");
    }

    private JobCoordinator start(CuratorFramework client, JobConfiguration configuration) {
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, configuration)
                .instanceId("a")
                .reconcileInterval(Duration.ofMillis(300))
                .shardingWaitTimeout(Duration.ofSeconds(5))
                .job(context -> {}, pool)
                .listener(results::add)
                .build());
        coordinator.start();
        return coordinator;
    }

    private List<ItemResult> runsOf(Instant fireTime) {
        return results.stream()
                .filter(result -> result.fireTime().equals(fireTime))
                .toList();
    }

    private static final class IgnoringListener implements JobDefinitions.Listener {

        @Override
        public void defined(JobDefinitions.Definition definition) {}

        @Override
        public void removed(String jobName) {}
    }
}
