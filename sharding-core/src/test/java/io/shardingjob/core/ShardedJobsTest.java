package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The jobs of one application started together on one client, against a real ZooKeeper. */
class ShardedJobsTest extends ZooKeeperTestSupport {

    @Test
    void startsMoreJobsThanItStartsAtOnceAndEachOwnsItsItems() throws Exception {
        CuratorFramework client = newClient();
        ShardedJobs jobs = closeAfterTest(new ShardedJobs());
        ExecutorService items = Executors.newFixedThreadPool(2);
        closeAfterTest(items::shutdownNow);
        int count = ShardedJobs.PARALLEL_STARTS + 16;
        IntStream.range(0, count).forEach(i -> jobs.add(job(client, "job-" + i, null, items)));

        jobs.startAll();

        assertThat(jobs.all()).hasSize(count).allMatch(JobCoordinator::isStarted);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(jobs.all())
                        .allSatisfy(job -> assertThat(job.localItems()).containsExactly(0, 1)));
    }

    @Test
    void aJobThatCannotStartLeavesNoJobStarted() throws Exception {
        CuratorFramework client = newClient();
        ShardedJobs jobs = closeAfterTest(new ShardedJobs());
        ExecutorService items = Executors.newFixedThreadPool(2);
        closeAfterTest(items::shutdownNow);
        IntStream.range(0, 10).forEach(i -> jobs.add(job(client, "job-" + i, null, items)));
        jobs.add(job(client, "unknown-strategy", "no-such-strategy", items));

        assertThatThrownBy(jobs::startAll)
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("no-such-strategy");

        assertThat(jobs.all()).noneMatch(JobCoordinator::isStarted);
        for (int i = 0; i < 10; i++) {
            String instances = "/job-" + i + "/instances";
            if (client.checkExists().forPath(instances) != null) {
                assertThat(client.getChildren().forPath(instances))
                        .as(instances)
                        .isEmpty();
            }
        }
    }

    private static JobCoordinator job(
            CuratorFramework client, String name, @Nullable String strategy, ExecutorService items) {
        JobConfiguration.Builder configuration =
                JobConfiguration.builder(name).cron("0 0 0 1 1 ?").shardingTotalCount(2);
        if (strategy != null) {
            configuration.strategy(strategy);
        }
        return JobCoordinator.builder(client, configuration.build())
                .instanceId("solo")
                .job(context -> {}, items)
                .build();
    }
}
