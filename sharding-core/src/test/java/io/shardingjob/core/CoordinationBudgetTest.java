package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.CoordinationBudget;
import io.shardingjob.core.config.CoordinationBudget.Cliff;
import io.shardingjob.core.config.CoordinationBudget.Finding;
import io.shardingjob.core.config.CoordinationBudget.Severity;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.config.StoredConfiguration;
import io.shardingjob.core.operation.InvalidOperationException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;

/**
 * The coordination budget on a real ZooKeeper, a test per cliff: what is near one of ZooKeeper's limits starts and says
 * so, what is past one does not start, naming the job, the setting and the arithmetic, before anything is written.
 */
class CoordinationBudgetTest extends JobInstanceTestSupport {

    /** A year from now: the jobs of these tests fire only when triggered. */
    private static final String RARELY = "0 0 0 1 1 *";

    private static String itemParametersOf(int bytes) {
        return "0=" + "x".repeat(bytes - 4) + ",1=y";
    }

    @Test
    void aJobWhoseItemParametersAreNearTheirLimitStartsWithAWarning() throws Exception {
        JobConfiguration near = JobConfiguration.builder("near")
                .cron(RARELY)
                .shardingTotalCount(2)
                .shardingItemParameters(itemParametersOf(220_000))
                .build();

        Instance instance = start("a", near, context -> {});

        CoordinationBudget budget = instance.coordinator().budget();
        assertThat(budget.refused()).isFalse();
        assertThat(budget.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.cliff()).isEqualTo(Cliff.ITEM_PARAMETERS);
            assertThat(warning.message())
                    .isEqualTo("shardingItemParameters: the item parameters take 220,002 bytes in UTF-8 of the"
                            + " 262,144 bytes allowed (83 % of the limit)");
        });
    }

    @Test
    void aJobWhoseItemParametersArePastTheirLimitDoesNotStart() throws Exception {
        CuratorFramework client = newClient();
        JobConfiguration over = JobConfiguration.builder("over")
                .cron(RARELY)
                .shardingTotalCount(2)
                .shardingItemParameters(itemParametersOf(300_000))
                .build();
        JobCoordinator coordinator = JobCoordinator.builder(client, over).build();

        assertThatThrownBy(coordinator::start)
                .isInstanceOfSatisfying(JobConfigurationException.class, refused -> {
                    assertThat(refused.jobName()).isEqualTo("over");
                    assertThat(refused.property()).isEqualTo("shardingItemParameters");
                })
                .hasMessageContaining("Job 'over': invalid shardingItemParameters: shardingItemParameters: the item"
                        + " parameters take 300,002 bytes in UTF-8 of the 262,144 bytes allowed (114 % of the limit,"
                        + " past it)");
        assertThat(client.checkExists().forPath("/over")).as("nothing written").isNull();
    }

    @Test
    void aJobWhoseJobParameterIsNearItsLimitStartsWithAWarning() throws Exception {
        JobConfiguration near = JobConfiguration.builder("parameterised")
                .cron(RARELY)
                .jobParameter("p".repeat(14_000))
                .build();

        Instance instance = start("a", near, context -> {});

        assertThat(instance.coordinator().budget().warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.cliff()).isEqualTo(Cliff.JOB_PARAMETER);
            assertThat(warning.message())
                    .startsWith("jobParameter: the job parameter takes 14,000 bytes in UTF-8 of the 16,384 bytes"
                            + " allowed");
        });
    }

    @Test
    void aJobWhoseStoredConfigurationWouldNotFitOneNodeDoesNotStart() throws Exception {
        CuratorFramework client = newClient();
        JobConfiguration described = JobConfiguration.builder("described")
                .cron(RARELY)
                .description("d".repeat(600_000))
                .build();
        JobCoordinator coordinator = JobCoordinator.builder(client, described).build();

        assertThatThrownBy(coordinator::start)
                .isInstanceOfSatisfying(
                        JobConfigurationException.class,
                        refused -> assertThat(refused.property()).isEqualTo("configuration"))
                .hasMessageContaining("of the 524,288 bytes one node of it may hold")
                .hasMessageContaining("past it");
        assertThat(client.checkExists().forPath("/described"))
                .as("nothing written")
                .isNull();
    }

    /** A client that takes answers of at most {@code packetBytes}. */
    private CuratorFramework clientOfPacket(int packetBytes) throws InterruptedException {
        ZKClientConfig small = new ZKClientConfig();
        small.setProperty(ZKClientConfig.JUTE_MAXBUFFER, Integer.toString(packetBytes));
        CuratorFramework client = closeAfterTest(CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace(NAMESPACE)
                .zkClientConfig(small)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build());
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    @Test
    void aJobWhoseFiresCannotBeReadInOneAnswerOfItsClientDoesNotStart() throws Exception {
        CuratorFramework client = clientOfPacket(65_536);
        JobConfiguration wide = JobConfiguration.builder("wide")
                .cron(RARELY)
                .shardingTotalCount(10_000)
                .build();

        assertThatThrownBy(() -> JobCoordinator.builder(client, wide).build().start())
                .isInstanceOfSatisfying(
                        JobConfigurationException.class,
                        refused -> assertThat(refused.property()).isEqualTo("shardingTotalCount"))
                .hasMessageContaining("an audit reads 8 fires in one answer, each the names of its 10,000 claims")
                .hasMessageContaining("8 x 112,882 bytes = 903,056 bytes, of the 65,536 bytes jute.maxbuffer allows");
        assertThat(client.checkExists().forPath("/wide")).as("nothing written").isNull();
    }

    @Test
    void aJobFiredEverySecondAndRetainedFourteenHoursStartsWithAWarningOnItsLedgersListing() throws Exception {
        JobConfiguration everySecond = JobConfiguration.builder("busy")
                .cron("* * * * * *")
                .shardingTotalCount(1)
                .build();

        Instance instance = start(
                "a",
                everySecond,
                context -> {},
                builder -> builder.schedule(EVERY_SECOND).ledgerRetention(Duration.ofHours(14)));

        assertThat(instance.coordinator().budget().warnings())
                .extracting(Finding::cliff)
                .containsExactly(Cliff.LEDGER_LISTING);
        assertThat(instance.coordinator().budget().warnings().get(0).message())
                .startsWith("ledgerRetention: 50,4")
                .contains("fires retained x 17 bytes a name + 100");
    }

    @Test
    void aJobFiredEverySecondAndRetainedEighteenHoursDoesNotStart() throws Exception {
        CuratorFramework client = newClient();
        JobConfiguration everySecond = JobConfiguration.builder("busier")
                .cron("* * * * * *")
                .shardingTotalCount(1)
                .build();
        JobCoordinator coordinator = JobCoordinator.builder(client, everySecond)
                .schedule(EVERY_SECOND)
                .ledgerRetention(Duration.ofHours(18))
                .build();

        assertThatThrownBy(coordinator::start)
                .isInstanceOfSatisfying(JobConfigurationException.class, refused -> {
                    assertThat(refused.property()).isEqualTo("ledgerRetention");
                    assertThat(refused.conflictingProperty()).contains("cron");
                })
                .hasMessageContaining("of the 1,048,575 bytes jute.maxbuffer allows")
                .hasMessageContaining("past it");
    }

    @Test
    void theLedgerFiguresFollowTheFiresAnAuditListedAndTheWritesItAskedFor() throws Exception {
        JobConfiguration triggered = JobConfiguration.builder("triggered")
                .cron(RARELY)
                .shardingTotalCount(3)
                .build();
        Instance instance = start("a", triggered, context -> {});
        await().atMost(Duration.ofSeconds(10))
                .until(() -> instance.coordinator().assignment().epoch() > 0);
        long writesBefore = instance.coordinator().budget().figures().ledgerWriteOperations();

        for (int fire = 0; fire < 3; fire++) {
            instance.coordinator().trigger(null);
            int done = (fire + 1) * 3;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> results(ItemResult::succeeded).size() >= done);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            CoordinationBudget budget = instance.coordinator().budget();
            assertThat(budget.figures().firesRetained()).isEqualTo(3);
            assertThat(budget.ledgerNodes()).isEqualTo(3 * (1 + 3));
            assertThat(budget.ledgerBytes()).isEqualTo(12L * CoordinationBudget.BYTES_PER_CLAIM);
        });
        // Each fire: its node, three claims with their starts, three ends.
        assertThat(instance.coordinator().budget().figures().ledgerWriteOperations() - writesBefore)
                .isGreaterThanOrEqualTo(3 * 7);
        assertThat(instance.coordinator().budget().findings()).isEmpty();
        assertThat(Severity.values()).containsExactly(Severity.WARNING, Severity.REFUSAL);
    }

    @Test
    void anOperatorsCountWhoseFiresItsClientCouldNotReadIsRefusedAndNothingChanges() throws Exception {
        CuratorFramework client = clientOfPacket(700_000);
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(
                        client,
                        JobConfiguration.builder("growing")
                                .cron(RARELY)
                                .shardingTotalCount(100)
                                .build())
                .build());
        coordinator.start();

        assertThatThrownBy(() -> coordinator.updateShardingTotalCount(10_000))
                .isInstanceOfSatisfying(InvalidOperationException.class, refused -> {
                    assertThat(refused.jobName()).isEqualTo("growing");
                    assertThat(refused.input()).isEqualTo("shardingTotalCount");
                })
                .hasMessageContaining("8 x 112,882 bytes = 903,056 bytes, of the 700,000 bytes jute.maxbuffer allows")
                .hasMessageContaining("suspends every job of the client");
        assertThat(StoredConfiguration.read(client, "growing").shardingTotalCount())
                .as("nothing stored")
                .isEqualTo(100);

        // Near the limit is allowed, and said by the budget.
        assertThat(coordinator.updateShardingTotalCount(5_000).shardingTotalCount())
                .isEqualTo(5_000);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(coordinator.budget().warnings())
                        .extracting(Finding::cliff)
                        .containsExactly(Cliff.FIRE_READ));
    }

    @Test
    void aDefinitionOrItsChangePastALimitOfTheDefiningClientIsRefusedAndNothingIsStored() throws Exception {
        CuratorFramework client = clientOfPacket(700_000);
        JobDefinitions definitions = closeAfterTest(new JobDefinitions(client, IGNORED, FireSchedule.NONE));
        JobConfiguration wide = JobConfiguration.builder("defined")
                .cron(RARELY)
                .shardingTotalCount(10_000)
                .build();

        assertThatThrownBy(() -> definitions.define(wide, "handler"))
                .isInstanceOfSatisfying(
                        InvalidOperationException.class,
                        refused -> assertThat(refused.input()).isEqualTo("shardingTotalCount"))
                .hasMessageContaining("903,056 bytes, of the 700,000 bytes jute.maxbuffer allows");
        assertThat(client.checkExists().forPath("/defined"))
                .as("nothing stored")
                .isNull();

        definitions.define(wide.toBuilder().shardingTotalCount(100).build(), "handler");
        assertThatThrownBy(() -> definitions.update(
                        "defined",
                        current ->
                                current.toBuilder().shardingTotalCount(10_000).build()))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("903,056 bytes");
        assertThat(definitions.storedConfiguration("defined").shardingTotalCount())
                .isEqualTo(100);
    }

    private static final JobDefinitions.Listener IGNORED = new JobDefinitions.Listener() {
        @Override
        public void defined(JobDefinitions.Definition definition) {}

        @Override
        public void removed(String jobName) {}
    };
}
