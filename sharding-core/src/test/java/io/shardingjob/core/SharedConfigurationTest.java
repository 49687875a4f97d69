package io.shardingjob.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.JobConfigurationService;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Which side wins when the local configuration and the one stored in ZooKeeper differ. */
class SharedConfigurationTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("report");

    private static JobConfiguration.Builder report() {
        return JobConfiguration.builder("report").cron("0 0/5 * * * *").shardingTotalCount(3);
    }

    @Test
    void theFirstInstanceStoresItsConfiguration() throws Exception {
        Instance first = startInstance("a", report().jobParameter("eu").build());

        JobConfiguration stored =
                JobConfigurationCodec.decode("report", first.client().getData().forPath(NODES.config()));

        assertThat(stored.jobParameter()).isEqualTo("eu");
        assertThat(first.coordinator().configuration()).isEqualTo(stored);
    }

    @Test
    void instancesStartingTogetherForTheFirstTimeAllTakeTheConfigurationOneOfThemStored() throws Exception {
        // Each reads that nothing is stored with its structure, before any stores: all but one are refused the store
        // and read again.
        List<Instance> instances = new java.util.ArrayList<>();
        for (String id : List.of("a", "b", "c", "d")) {
            instances.add(newInstance(id, report().jobParameter(id).build()));
        }
        instances.parallelStream().forEach(instance -> instance.coordinator().start());

        JobConfiguration stored = JobConfigurationCodec.decode(
                "report", instances.get(0).client().getData().forPath(NODES.config()));
        assertThat(stored.jobParameter()).isIn("a", "b", "c", "d");
        assertThat(instances)
                .allSatisfy(instance ->
                        assertThat(instance.coordinator().configuration()).isEqualTo(stored));
    }

    @Test
    void aFirstStartWhoseConfigurationIsLargerThanANodeMayBeFailsNamingTheJob() throws Exception {
        Instance instance =
                newInstance("a", report().description("x".repeat(600 * 1024)).build());

        assertThatThrownBy(() -> instance.coordinator().start())
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("report");
        assertThat(instance.client().checkExists().forPath(NODES.config()))
                .as("nothing stored")
                .isNull();
    }

    @Test
    void theStoredConfigurationWinsWhenOverwriteIsOff() throws Exception {
        startInstance("a", report().build());

        Instance second = startInstance("b", report().shardingTotalCount(7).build());

        assertThat(second.coordinator().configuration().shardingTotalCount()).isEqualTo(3);
        assertThat(second.coordinator().assignment().shardingTotalCount()).isIn(0, 3);
    }

    @Test
    void theLocalConfigurationWinsWhenOverwriteIsOn() throws Exception {
        Instance first = startInstance("a", report().build());

        startInstance("b", report().shardingTotalCount(7).overwrite(true).build());

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(first.coordinator().configuration().shardingTotalCount()).isEqualTo(7);
            assertThat(first.coordinator().assignment().shardingTotalCount()).isEqualTo(7);
        });
    }

    @Test
    void anInvalidStoredConfigurationIsIgnoredAndTheLastValidOneStays() throws Exception {
        Instance first = startInstance("a", report().build());
        CuratorFramework operator = newClient();

        operator.setData().forPath(NODES.config(), "cron=0 0/5 * * * *\nshardingTotalCount=0\n".getBytes());
        // A later valid edit proves the cache went past the invalid one.
        operator.setData()
                .forPath(NODES.config(), "cron=0 0/5 * * * *\nshardingTotalCount=3\njobParameter=after\n".getBytes());

        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(
                        () -> assertThat(first.coordinator().configuration().jobParameter())
                                .isEqualTo("after"));
        assertThat(first.coordinator().configuration().shardingTotalCount()).isEqualTo(3);
    }

    @Test
    void anOperatorsEditThatTurnsOnDynamicShardingBesideItemParametersIsRefusedAndTheLastValidOneStays()
            throws Exception {
        Instance first = startInstance(
                "a", report().shardingItemParameters("0=north,1=south,2=east").build());
        CuratorFramework operator = newClient();
        Logger log = (Logger) LoggerFactory.getLogger(JobConfigurationService.class);
        ListAppender<ILoggingEvent> errors = new ListAppender<>();
        errors.start();
        log.addAppender(errors);
        try {
            operator.setData()
                    .forPath(
                            NODES.config(),
                            ("cron=0 0/5 * * * *\nshardingTotalCount=3\nshardingItemParameters=0=north,1=south,2=east\n"
                                            + "dynamicSharding=true\n")
                                    .getBytes(UTF_8));

            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                first.coordinator().configuration();
                List<ILoggingEvent> logged;
                synchronized (errors) { // AppenderBase.doAppend appends under the appender's lock
                    logged = List.copyOf(errors.list);
                }
                assertThat(logged).anySatisfy(event -> {
                    assertThat(event.getLevel()).isEqualTo(Level.ERROR);
                    assertThat(event.getFormattedMessage())
                            .contains(
                                    "Job report: ignoring the invalid configuration stored in ZooKeeper",
                                    "invalid shardingItemParameters",
                                    "cannot be combined with dynamicSharding=true");
                });
            });
        } finally {
            log.detachAppender(errors);
        }
        assertThat(first.coordinator().configuration().dynamicSharding()).isFalse();
        assertThat(first.coordinator().configuration().itemParameters().get(2)).isEqualTo("east");
    }

    @Test
    void anUnknownStrategyFailsStartUpNamingTheJobAndTheProperty() throws Exception {
        Instance instance = newInstance("a", report().strategy("nearest").build());

        assertThatThrownBy(() -> instance.coordinator().start())
                .isInstanceOfSatisfying(JobConfigurationException.class, ex -> {
                    assertThat(ex.jobName()).isEqualTo("report");
                    assertThat(ex.property()).isEqualTo("strategy");
                })
                .hasMessageContaining("nearest")
                .hasMessageContaining("average");
        assertThat(instance.client().checkExists().forPath(NODES.config())).isNull();
    }

    @Test
    void aSecondJobWithTheSameNameIsRefusedWithoutTouchingTheFirst() throws Exception {
        Instance first = startInstance("a", report().build());
        ShardedJobs jobs = new ShardedJobs();
        jobs.add(first.coordinator());

        Instance duplicate = newInstance("a", report().shardingTotalCount(9).build());

        assertThatThrownBy(() -> jobs.add(duplicate.coordinator()))
                .isInstanceOfSatisfying(
                        JobConfigurationException.class,
                        ex -> assertThat(ex.property()).isEqualTo("name"))
                .hasMessageContaining("report");
        assertThat(first.coordinator().configuration().shardingTotalCount()).isEqualTo(3);
        assertThat(jobs.all()).containsExactly(first.coordinator());
    }
}
