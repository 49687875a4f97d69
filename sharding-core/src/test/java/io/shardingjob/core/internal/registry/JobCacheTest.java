package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.internal.config.OperatorInputs;
import io.shardingjob.core.internal.requests.SizeRecord;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.RequestCounter.Counts;
import io.shardingjob.core.testing.TcpProxy;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a job's cache answers, against a real ZooKeeper: every node and listing of the small state it watches and
 * nothing of the ledger or of another job beside it; every change after its load, after a reconnection and on a new
 * session; and no watch left once closed.
 */
class JobCacheTest extends ZooKeeperTestSupport {

    private final ExecutorService listeners = Executors.newSingleThreadExecutor();

    private final JobNodes job = new JobNodes("report");

    @AfterEach
    void stopListeners() {
        listeners.shutdownNow();
    }

    @Test
    void answersForEveryWatchedSubtreeAndNodeAndForNothingElse() throws Exception {
        CuratorFramework client = newClient();
        write(client, job.instance("a"), "a");
        write(client, job.instance("b"), "b");
        write(client, job.disabledItem(3), "");
        write(client, job.leavingInstance("b"), "");
        write(client, job.follower("export"), "on=success");
        write(client, job.assignment(), "epoch=1");
        write(client, job.config(), "cron=0 0 * * * *");
        write(client, job.claim(Instant.ofEpochMilli(1_000), 0), "state=RUNNING");
        write(client, new JobNodes("reporting").instance("c"), "c");
        write(client, "/report-archive/instances/d", "d");

        JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
        cache.start(Duration.ofSeconds(10));

        assertThat(cache.children(job.instances())).containsExactly("a", "b");
        assertThat(cache.children(job.disabledItems())).containsExactly("3");
        assertThat(cache.children(job.disabledInstances())).isEmpty();
        assertThat(cache.children(job.leavingInstances())).containsExactly("b");
        assertThat(cache.children(job.followers())).containsExactly("export");
        assertThat(cache.data(job.instance("b")))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("b"));
        assertThat(cache.data(job.assignment()))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("epoch=1"));
        assertThat(cache.data(job.config()))
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("cron=0 0 * * * *"));
        assertThat(cache.exists(job.follower("export"))).isTrue();

        assertThat(cache.children(job.ledger()))
                .as("the ledger is never cached")
                .isEmpty();
        assertThat(cache.exists(job.claim(Instant.ofEpochMilli(1_000), 0))).isFalse();
        assertThat(cache.children(new JobNodes("reporting").instances()))
                .as("a job whose name starts with this one's")
                .isEmpty();
        assertThat(cache.children("/report-archive/instances")).isEmpty();
    }

    @Test
    void loadsTheNodesEveryJobHasInOneRequestAndWhatLiesBelowThemNext() throws Exception {
        CuratorFramework client = newClient();
        JobStructure.ensure(client, List.of(job), List::of);
        byte[] config = bytes("cron=0 0 * * * *");
        client.transaction()
                .forOperations(
                        SizeRecord.write(client, job.size(job.config()), config),
                        client.transactionOp().create().forPath(job.config(), config));
        write(client, job.instance("a"), "a");
        write(client, job.disabledItem(3), "");
        write(client, job.leaderLatch() + "/_c_a-latch-0000000001", "a");
        RequestCounter counter = RequestCounter.attachTo(client);
        Counts before = counter.counts();

        JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
        cache.start(Duration.ofSeconds(10));

        assertThat(cache.children(job.instances())).containsExactly("a");
        assertThat(cache.children(job.disabledItems())).containsExactly("3");
        assertThat(cache.children(job.leaderLatch())).containsExactly("_c_a-latch-0000000001");
        assertThat(counter.counts().since(before).total())
                .as("the watch, the nodes every job has in one request, then what the three listings with children"
                        + " hold, at most a request each (level by level, a load took a request per level and more): "
                        + counter.counts().since(before).byOperation())
                .isLessThanOrEqualTo(5);
    }

    @Test
    void seesEveryChangeAfterItsLoadAndTellsItsListenersThePath() throws Exception {
        CuratorFramework client = newClient();
        write(client, job.instance("a"), "a");
        write(client, job.config(), "cron=0 0 * * * *");
        JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
        List<String> told = new CopyOnWriteArrayList<>();
        cache.addListener(path -> told.add(String.valueOf(path)));
        cache.start(Duration.ofSeconds(10));
        await().until(() -> told.contains("null"));

        CuratorFramework operator = newClient();
        // Before the changes awaited below: had it been told, it would have been told first.
        write(operator, job.claim(Instant.ofEpochMilli(1_000), 0), "state=RUNNING");
        write(operator, job.instance("b"), "b");
        operator.setData().forPath(job.config(), bytes("cron=0 30 * * * *"));
        operator.delete().forPath(job.instance("a"));
        write(operator, job.disabledItem(7), "");

        await().untilAsserted(() -> {
            assertThat(cache.children(job.instances())).containsExactly("b");
            assertThat(cache.data(job.config()))
                    .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("cron=0 30 * * * *"));
            assertThat(cache.children(job.disabledItems())).containsExactly("7");
        });
        assertThat(told)
                .contains(job.instance("b"), job.config(), job.instance("a"), job.disabledItem(7))
                .noneMatch(path -> path.startsWith(job.ledger()));
    }

    @Test
    void aReconnectionReadsAgainWhatChangedWhileTheConnectionWasDown() throws Exception {
        try (TcpProxy proxy = new TcpProxy(server.getPort())) {
            CuratorFramework client = newClient(proxy.connectString(), Duration.ofSeconds(10));
            write(client, job.instance("a"), "a");
            write(client, job.instance("gone"), "gone");
            write(client, job.assignment(), "epoch=1");
            JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
            cache.start(Duration.ofSeconds(10));

            proxy.cut();
            CuratorFramework operator = newClient();
            operator.delete().forPath(job.instance("gone"));
            write(operator, job.instance("new"), "new");
            operator.setData().forPath(job.assignment(), bytes("epoch=2"));
            proxy.restore();

            await().untilAsserted(() -> {
                assertThat(cache.children(job.instances())).containsExactly("a", "new");
                assertThat(cache.data(job.assignment()))
                        .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("epoch=2"));
            });
            operator.delete().forPath(job.instance("a"));
            await().untilAsserted(
                            () -> assertThat(cache.children(job.instances())).containsExactly("new"));
        }
    }

    @Test
    void anExpiredSessionWatchesAgainOnTheNewOne() throws Exception {
        CuratorFramework client = newClient();
        write(client, job.instance("a"), "a");
        JobCache cache = closeAfterTest(new JobCache(client, job, listeners));
        cache.start(Duration.ofSeconds(10));

        expireSession(client);
        await().until(() -> client.getZookeeperClient().isConnected()
                && client.getZookeeperClient().getZooKeeper().getSessionId() != 0);
        CuratorFramework operator = newClient();
        write(operator, job.instance("b"), "b");

        await().untilAsserted(() -> assertThat(cache.children(job.instances())).containsExactly("a", "b"));
    }

    @Test
    void aClosedCacheLeavesNoWatchOnTheClient() throws Exception {
        CuratorFramework client = newClient();
        JobCache cache = new JobCache(client, job, listeners);
        cache.start(Duration.ofSeconds(10));
        ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
        assertThat(watches(zooKeeper, "getPersistentRecursiveWatches"))
                .as("one watch covers the job's small state")
                .hasSize(1);
        assertThat(watches(zooKeeper, "getPersistentWatches")).isEmpty();

        cache.close();

        await().untilAsserted(() -> {
            assertThat(watches(zooKeeper, "getPersistentRecursiveWatches")).isEmpty();
            assertThat(watches(zooKeeper, "getPersistentWatches")).isEmpty();
        });
    }

    @Test
    void configurationsNearTheLimitOfJobsLoadingTogetherAreNeverMergedPastWhatOneAnswerCarries() throws Exception {
        List<JobNodes> jobs = jobs(6);
        CuratorFramework writer = newClient();
        JobStructure.ensure(writer, jobs, List::of);
        byte[] large = new byte[OperatorInputs.MAX_CONFIGURATION_BYTES - 1024];
        for (JobNodes each : jobs) {
            // As every writer writes one: with its size record, in one transaction.
            writer.transaction()
                    .forOperations(
                            SizeRecord.write(writer, each.size(each.config()), large),
                            writer.transactionOp().create().forPath(each.config(), large));
        }

        CuratorFramework client = newClient();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((changed, state) -> states.add(state));
        List<JobCache> caches = startTogether(client, jobs);

        for (int i = 0; i < jobs.size(); i++) {
            assertThat(caches.get(i).data(jobs.get(i).config()))
                    .hasValueSatisfying(data -> assertThat(data).hasSize(large.length));
        }
        assertThat(states)
                .as("no answer larger than the client takes dropped the connection")
                .doesNotContain(ConnectionState.SUSPENDED, ConnectionState.LOST);
    }

    @Test
    void configurationsRewrittenByHandWithoutTheirSizeRecordsAreNeverMergedPastWhatOneAnswerCarries() throws Exception {
        List<JobNodes> jobs = jobs(8);
        CuratorFramework writer = newClient();
        JobStructure.ensure(writer, jobs, List::of);
        byte[] small = bytes("cron=0 0 * * * *");
        for (JobNodes each : jobs) {
            writer.transaction()
                    .forOperations(
                            SizeRecord.write(writer, each.size(each.config()), small),
                            writer.transactionOp().create().forPath(each.config(), small));
        }
        CuratorFramework client = newClient();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((changed, state) -> states.add(state));
        List<JobCache> caches = startTogether(client, jobs);

        byte[] large = new byte[OperatorInputs.MAX_CONFIGURATION_BYTES - 1024];
        for (JobNodes each : jobs) {
            // By hand: the records still say a few lines.
            writer.setData().forPath(each.config(), large);
        }

        await().untilAsserted(() -> {
            for (int i = 0; i < jobs.size(); i++) {
                assertThat(caches.get(i).data(jobs.get(i).config()))
                        .hasValueSatisfying(data -> assertThat(data).hasSize(large.length));
            }
        });
        assertThat(states)
                .as("no answer larger than the client takes dropped the connection")
                .doesNotContain(ConnectionState.SUSPENDED, ConnectionState.LOST);
    }

    private static List<JobNodes> jobs(int count) {
        List<JobNodes> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(new JobNodes("large-" + i));
        }
        return jobs;
    }

    /** Starts a cache of each job at once, as a restart of their instance does, and waits until each is loaded. */
    private List<JobCache> startTogether(CuratorFramework client, List<JobNodes> jobs) {
        List<JobCache> caches = new ArrayList<>();
        jobs.forEach(each -> caches.add(closeAfterTest(new JobCache(client, each, listeners))));
        caches.parallelStream().forEach(cache -> cache.start(Duration.ofSeconds(30)));
        return caches;
    }

    /** The client's watches of a kind: ZooKeeper lists them to its subclasses only. */
    private static List<?> watches(ZooKeeper zooKeeper, String listing) throws Exception {
        Method method = ZooKeeper.class.getDeclaredMethod(listing);
        method.setAccessible(true);
        return (List<?>) method.invoke(zooKeeper);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void write(CuratorFramework client, String path, String data) throws Exception {
        client.create().creatingParentsIfNeeded().forPath(path, data.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }
}
