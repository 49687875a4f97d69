package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

class JobDefinitionsTest extends ZooKeeperTestSupport {

    private static JobConfiguration export() {
        return JobConfiguration.builder("export")
                .cron("0/1 * * * * *")
                .shardingTotalCount(2)
                .build();
    }

    @Test
    void aDefinitionReachesEveryInstanceAndOneThatStartsLater() throws Exception {
        Heard first = new Heard();
        CuratorFramework client = newClient();
        JobDefinitions one = definitions(client, first);

        one.define(export(), "exporter");

        assertThat(first.next()).isEqualTo("defined export exporter");
        Heard later = new Heard();
        JobDefinitions other = definitions(newClient(), later);
        assertThat(later.next()).isEqualTo("defined export exporter");
        assertThat(other.active())
                .extracting(JobDefinitions.Definition::jobName)
                .containsExactly("export");
        assertThat(JobConfigurationCodec.decode("export", client.getData().forPath("/export/config")))
                .isEqualTo(export());
    }

    @Test
    void aNameThatIsDefinedOrHasStateIsRefusedWithoutTouchingIt() throws Exception {
        CuratorFramework client = newClient();
        JobDefinitions definitions = definitions(client, new Heard());
        definitions.define(export(), "exporter");
        startInstance(
                "a", JobConfiguration.builder("declared").cron("0 0 * * * *").build());

        assertThatThrownBy(() -> definitions.define(
                        export().toBuilder().shardingTotalCount(5).build(), "exporter"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("'export'")
                .hasMessageContaining("defined already");
        assertThatThrownBy(() -> definitions.define(
                        JobConfiguration.builder("declared").cron("0 0 * * * *").build(), "h"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("has state in ZooKeeper");
        assertThat(JobConfigurationCodec.decode("export", client.getData().forPath("/export/config"))
                        .shardingTotalCount())
                .isEqualTo(2);
    }

    @Test
    void aDefinitionThatWouldCloseACycleIsRefusedAndNothingIsStored() throws Exception {
        CuratorFramework client = newClient();
        JobDefinitions definitions = definitions(client, new Heard());
        definitions.define(JobConfiguration.builder("extract").build(), "h");
        definitions.define(JobConfiguration.builder("load").after("extract").build(), "h");

        assertThatThrownBy(() -> definitions.define(
                        JobConfiguration.builder("report")
                                .after("load", "nowhere")
                                .build(),
                        "h"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("'report'")
                .hasMessageContaining("after")
                .hasMessageContaining(
                        "follows 'nowhere', which is no job of this application nor stored in the namespace");
        assertThatThrownBy(() -> definitions.update(
                        "extract", current -> current.toBuilder().after("load").build()))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("'extract'")
                .hasMessageContaining("is in a cycle: extract -> load -> extract");
        assertThat(client.checkExists().forPath("/report")).isNull();
        assertThat(definitions.storedConfiguration("extract").after()).isEmpty();
    }

    @Test
    void anItemCountChangeThatAnItemWiseFollowerCannotFollowIsRefused() throws Exception {
        JobDefinitions definitions = definitions(newClient(), new Heard());
        definitions.define(
                JobConfiguration.builder("settle").shardingTotalCount(4).build(), "h");
        definitions.define(
                JobConfiguration.builder("export")
                        .shardingTotalCount(4)
                        .after("settle")
                        .itemWise(true)
                        .build(),
                "h");

        assertThatThrownBy(() -> definitions.update(
                        "settle",
                        current -> current.toBuilder().shardingTotalCount(3).build()))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("Job 'settle': invalid itemWise: job 'export' then has 4 items and follows"
                        + " 'settle', which has 3");
        assertThat(definitions.storedConfiguration("settle").shardingTotalCount())
                .isEqualTo(4);
    }

    @Test
    void anUpdateChangesTheStoredConfigurationThatRunningInstancesFollow() throws Exception {
        JobDefinitions definitions = definitions(newClient(), new Heard());
        definitions.define(export(), "exporter");
        Instance running = startInstance("a", export());

        JobConfiguration stored = definitions.update(
                "export",
                current -> current.toBuilder()
                        .cron("0/2 * * * * *")
                        .shardingTotalCount(3)
                        .build());

        assertThat(stored.cron()).isEqualTo("0/2 * * * * *");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(running.coordinator().configuration().cron()).isEqualTo("0/2 * * * * *");
            assertThat(running.coordinator().assignment().shardingTotalCount()).isEqualTo(3);
        });
        assertThatThrownBy(() -> definitions.update(
                        "export",
                        current -> current.toBuilder().shardingTotalCount(0).build()))
                .isInstanceOf(JobConfigurationException.class);
        assertThatThrownBy(() -> definitions.update("nothing", current -> current))
                .isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void aRemovalStopsTheJobEverywhereThenDeletesItsStateAndItsLedger() throws Exception {
        Heard heard = new Heard();
        CuratorFramework client = newClient();
        JobDefinitions definitions = definitions(client, heard);
        definitions.define(export(), "exporter");
        assertThat(heard.next()).isEqualTo("defined export exporter");
        Instance running = startInstance("a", export());
        running.coordinator().fire(context -> {}, Runnable::run);
        assertThat(client.getChildren().forPath(new JobNodes("export").ledger()))
                .isNotEmpty();

        var removed = definitions.remove("export", Duration.ofSeconds(10), ForkJoinPool.commonPool());

        // What the starter does when it hears of the removal: it stops the job here.
        assertThat(heard.next()).isEqualTo("removed export");
        assertThat(client.checkExists().forPath("/export"))
                .as("kept while an instance runs the job")
                .isNotNull();
        running.coordinator().close();
        removed.get(10, TimeUnit.SECONDS);
        assertThat(client.checkExists().forPath("/export")).isNull();
        assertThat(client.checkExists().forPath(new JobNodes("export").ledger()))
                .isNull();
        assertThat(client.checkExists().forPath(JobNodes.definition("export"))).isNull();
        assertThat(definitions.active()).isEmpty();
        definitions.define(export(), "exporter");
        assertThat(heard.next()).as("the name is free again").isEqualTo("defined export exporter");
    }

    @Test
    void aRemovalThatDidNotFinishIsFinishedByTheNextOne() throws Exception {
        CuratorFramework client = newClient();
        JobDefinitions definitions = definitions(client, new Heard());
        definitions.define(export(), "exporter");
        Instance stuck = startInstance("a", export());

        var first = definitions.remove("export", Duration.ofMillis(200), ForkJoinPool.commonPool());
        first.get(10, TimeUnit.SECONDS);
        assertThat(client.checkExists().forPath(JobNodes.definition("export")))
                .as("deleted all the same once the wait is over")
                .isNull();
        stuck.coordinator().close();
        assertThatThrownBy(() -> definitions.remove("export", Duration.ofSeconds(1), ForkJoinPool.commonPool()))
                .isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void aJobClosedAndStartedAgainOnTheSameClientGetsItsItemsAgain() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator first = closeAfterTest(
                JobCoordinator.builder(client, export()).instanceId("a").build());
        first.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> first.localItems().size() == 2);

        first.close();

        assertThat(client.checkExists().forPath(new JobNodes("export").leavingInstance("a")))
                .as("the leaving mark goes with the job, not with the session")
                .isNull();
        JobCoordinator again = closeAfterTest(
                JobCoordinator.builder(client, export()).instanceId("a").build());
        again.start();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(again.localItems()).containsExactly(0, 1));
    }

    private JobDefinitions definitions(CuratorFramework client, Heard heard) {
        JobDefinitions definitions = closeAfterTest(new JobDefinitions(client, heard, FireSchedule.NONE));
        definitions.start();
        return definitions;
    }

    /** What a listener heard, one line per call, in order. */
    private static final class Heard implements JobDefinitions.Listener {

        private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

        @Override
        public void defined(JobDefinitions.Definition definition) {
            calls.add("defined " + definition.jobName() + " " + definition.handler());
        }

        @Override
        public void removed(String jobName) {
            calls.add("removed " + jobName);
        }

        String next() throws InterruptedException {
            String call = calls.poll(10, TimeUnit.SECONDS);
            assertThat(call).as("a call within 10 s").isNotNull();
            return call;
        }
    }
}
