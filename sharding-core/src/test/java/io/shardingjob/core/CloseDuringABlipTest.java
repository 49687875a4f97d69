package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One job of a Curator client shared with another job closes while the client's connection is down, and the connection
 * comes back within the session timeout, against a real ZooKeeper: the session lives on for the other job, so nothing
 * of the closed job may be left to the session. Its registration must be gone once the close returns, the end it owed
 * must be recorded, and another instance must own and run its items.
 */
class CloseDuringABlipTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    /**
     * The shared client's session: long enough that the blip (the close reaching its wait, then the client finding the
     * server again) ends well within it on a loaded machine. The server grants it with ticks of 500 ms.
     */
    private static final Duration SHARED_SESSION = Duration.ofSeconds(8);

    private static final JobConfiguration ALPHA = JobConfiguration.builder("alpha")
            .cron("* * * * * *")
            .shardingTotalCount(2)
            .failover(true)
            .build();

    private static final JobConfiguration BETA = JobConfiguration.builder("beta")
            .cron("* * * * * *")
            .shardingTotalCount(1)
            .build();

    private final ConcurrentLinkedQueue<ItemResult> results = new ConcurrentLinkedQueue<>();

    private final CountDownLatch closingItemStarted = new CountDownLatch(1);

    private final CountDownLatch closingItemMayEnd = new CountDownLatch(1);

    /** A server whose ticks allow the shared client's long session (the server grants at most twenty ticks). */
    @BeforeEach
    @Override
    void startZooKeeper() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    }

    @Test
    void aJobClosedDuringABlipOnASharedClientLeavesNoRegistrationBehindAndItsItemsRunElsewhere() throws Exception {
        TcpProxy network = closeAfterTest(new TcpProxy(server.getPort()));
        CuratorFramework shared = newClient(network.connectString(), SHARED_SESSION);
        CuratorFramework other = newClient();
        JobCoordinator staying = start(other, "b", ALPHA);
        JobCoordinator closing = start(shared, "a", ALPHA);
        JobCoordinator sharing = start(shared, "a", BETA);
        await().atMost(WITHIN).until(() -> settled(staying, closing));
        int item = closing.localItems().get(0);
        long session = shared.getZookeeperClient().getZooKeeper().getSessionId();

        Instant firstFire = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        closing.fireAsync(ExecutionSource.NORMAL, firstFire);
        assertThat(closingItemStarted.await(10, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(closing::close, "closing-alpha");
        closer.start();
        JobNodes nodes = new JobNodes("alpha");
        // Its leaving announced, and answered: it left the election after that, and now waits for its item.
        await().atMost(WITHIN).ignoreExceptions().until(() -> !standsInTheElection(other, nodes, "a"));
        assertThat(other.checkExists().forPath(nodes.leavingInstance("a"))).isNotNull();

        // The blip: the item ends while the connection is down, so its end is owed, and the close goes on without it.
        network.cut();
        await().atMost(WITHIN).until(() -> !shared.getZookeeperClient().isConnected());
        closingItemMayEnd.countDown();
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(10)).until(() -> waitsForTheConnection(closer));
        network.restore();

        await().atMost(WITHIN).until(() -> !closer.isAlive());
        assertThat(shared.getZookeeperClient().getZooKeeper().getSessionId())
                .as("the blip ended within the session, which lives on for the job sharing the client")
                .isEqualTo(session);
        assertThat(other.checkExists().forPath(nodes.instance("a")))
                .as("the closed job's registration")
                .isNull();
        assertThat(other.checkExists().forPath(nodes.leavingInstance("a")))
                .as("its leaving mark, withdrawn after it")
                .isNull();
        assertThat(claimOf(staying, firstFire, item).state())
                .as("the end the close owed, recorded once the connection was back")
                .isEqualTo(ClaimState.DONE);

        await().atMost(WITHIN)
                .until(() -> staying.liveInstances().equals(List.of("b"))
                        && staying.localItems().equals(List.of(0, 1))
                        && !staying.isReshardPending());
        Instant secondFire = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        FireReport report = staying.fire(ExecutionSource.NORMAL, secondFire);
        assertThat(report.results())
                .extracting(result -> result.context().item())
                .containsExactlyInAnyOrder(0, 1);
        assertThat(results)
                .as("the closed job's completed item is not run again")
                .filteredOn(result ->
                        result.fireTime().equals(firstFire) && result.context().item() == item)
                .hasSize(1);
        assertThat(sharing.isAvailable()).isTrue();
        assertThat(sharing.liveInstances()).containsExactly("a");
    }

    private JobCoordinator start(CuratorFramework client, String id, JobConfiguration configuration) {
        ExecutorService pool = Executors.newCachedThreadPool();
        closeAfterTest(pool::shutdownNow);
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, configuration)
                .instanceId(id)
                .reconcileInterval(Duration.ofMillis(300))
                .shardingWaitTimeout(Duration.ofSeconds(5))
                .shutdownGracePeriod(WITHIN)
                .interruptOnConnectionLoss(false)
                .job(
                        context -> {
                            if (id.equals("a") && configuration == ALPHA) {
                                closingItemStarted.countDown();
                                closingItemMayEnd.await(WITHIN.toSeconds(), TimeUnit.SECONDS);
                            }
                        },
                        pool)
                .listener(results::add)
                .build());
        coordinator.start();
        return coordinator;
    }

    private static boolean settled(JobCoordinator... coordinators) {
        return Arrays.stream(coordinators)
                .allMatch(coordinator -> !coordinator.isReshardPending()
                        && coordinator.assignment().itemsByInstance().size() == coordinators.length
                        && coordinator.assignment().equals(coordinators[0].assignment()));
    }

    private static boolean standsInTheElection(CuratorFramework client, JobNodes nodes, String id) throws Exception {
        for (String candidate : client.getChildren().forPath(nodes.leaderLatch())) {
            byte[] data = client.getData().forPath(nodes.leaderLatch() + "/" + candidate);
            if (id.equals(new String(data, StandardCharsets.UTF_8))) {
                return true;
            }
        }
        return false;
    }

    /** Whether the thread waits in Curator for the connection to come back. */
    private static boolean waitsForTheConnection(Thread thread) {
        return Arrays.stream(thread.getStackTrace())
                .anyMatch(
                        frame -> frame.getMethodName().toLowerCase(Locale.ROOT).contains("blockuntilconnected"));
    }

    private static LedgerFire.Item claimOf(JobCoordinator coordinator, Instant fireTime, int item) {
        return coordinator.ledger().recentFires(10).stream()
                .filter(fire -> fire.fireTime().equals(fireTime))
                .flatMap(fire -> fire.items().stream())
                .filter(claim -> claim.item() == item)
                .findFirst()
                .orElseThrow();
    }
}
