package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.testing.TcpProxy;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs share a few coordination threads, and a job's coordination never holds one while ZooKeeper answers it: a job
 * whose server stalls delays no other job's reshards, audits or ledger upkeep.
 */
class CoordinationLoopTest extends JobInstanceTestSupport {

    private final ScheduledExecutorService oneCoordinationThread = Executors.newSingleThreadScheduledExecutor();

    private TcpProxy stalling;

    @AfterEach
    void stopTheSharedThreadAndTheProxy() {
        if (stalling != null) {
            stalling.thaw();
        }
        closeInstances();
        oneCoordinationThread.shutdownNow();
        if (stalling != null) {
            stalling.close();
        }
    }

    @Test
    void aJobWaitingForAStalledServerDoesNotDelayTheReshardOfAnotherJobOnTheSameThread() throws Exception {
        JobConfiguration slowJob = JobConfiguration.builder("stalled")
                .cron("0 0 0 1 1 *")
                .shardingTotalCount(2)
                .build();
        JobConfiguration fastJob = JobConfiguration.builder("unhindered")
                .cron("0 0 0 1 1 *")
                .shardingTotalCount(4)
                .build();
        stalling = new TcpProxy(server.getPort());
        CuratorFramework stalledClient = clientThrough(stalling, Duration.ofSeconds(30));
        JobCoordinator slow = JobCoordinator.builder(stalledClient, slowJob)
                .instanceId("slow")
                .scheduler(oneCoordinationThread)
                .reconcileInterval(Duration.ofMillis(50))
                .build();
        slow.start();
        Instance fast = start(
                "fast-a",
                fastJob,
                context -> {},
                builder -> builder.scheduler(oneCoordinationThread).reconcileInterval(Duration.ofMillis(50)));
        await().until(() -> slow.isLeader() && fast.coordinator().isLeader());
        await().until(() ->
                slow.localItems().size() == 2 && fast.coordinator().localItems().size() == 4);

        // The slow job's next periodic pass sends its reads to a server that does not answer for 20 seconds.
        stalling.freeze();
        await().atMost(Duration.ofSeconds(5)).until(() -> stalling.heldBytes() > 0);
        Instance joining = start("fast-b", fastJob, context -> {});

        // The leader of the other job reshards on the shared thread meanwhile.
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(
                        () -> assertThat(joining.coordinator().localItems()).hasSize(2));
        assertThat(fast.coordinator().localItems()).hasSize(2);
        assertThat(slow.isAvailable())
                .as("the stalled job's connection is not lost yet")
                .isTrue();

        stalling.thaw();
        slow.close();
        stalledClient.close();
    }

    private CuratorFramework clientThrough(TcpProxy proxy, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs(5000)
                .retryPolicy(new ExponentialBackoffRetry(50, 3))
                .build();
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        return client;
    }
}
