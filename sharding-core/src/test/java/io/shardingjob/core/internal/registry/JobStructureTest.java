package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.testing.RequestCounter;
import io.shardingjob.core.testing.RequestCounter.Counts;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The persistent nodes of many jobs made sure of in two requests, against a real ZooKeeper. */
class JobStructureTest extends ZooKeeperTestSupport {

    @Test
    void createsEveryNodeOfManyJobsInANewNamespaceWithOneReadAndOneCreate() throws Exception {
        CuratorFramework client = newClient();
        RequestCounter requests = RequestCounter.attachTo(client);
        List<JobNodes> jobs = jobs("order", 3);

        JobStructure.ensure(client, jobs, List::of);

        assertThat(requests.counts().byOperation())
                .containsEntry("StructureMultiRead/foreground", 1L)
                .containsEntry("StructureCreate/foreground", 1L);
        assertEveryNodeExists(client, jobs);
    }

    @Test
    void writesWhatGoesAlongInTheRequestThatCreatesTheNodes() throws Exception {
        CuratorFramework client = newClient();
        // The namespace exists: in one without, Curator's transaction creates the nodes and nothing goes along.
        client.create().forPath("/other");
        JobNodes job = new JobNodes("order");
        ClientRequests requests = new ClientRequests(client, "Configuration");
        RequestCounter counter = RequestCounter.attachTo(client);

        boolean written = JobStructure.ensure(
                client, List.of(job), () -> List.of(requests.createPersistent(job.config(), bytes("cron"))));

        assertThat(written).isTrue();
        assertThat(new String(client.getData().forPath(job.config()), StandardCharsets.UTF_8))
                .isEqualTo("cron");
        assertThat(counter.counts().byOperation())
                .containsEntry("StructureMultiRead/foreground", 1L)
                .containsEntry("StructureCreate/foreground", 1L);
    }

    @Test
    void whatGoesAlongRefusedIsLeftToItsCallerAndTheNodesAreCreatedAllTheSame() throws Exception {
        CuratorFramework client = newClient();
        JobNodes job = new JobNodes("order");
        // Stored by another instance since the caller read that nothing was.
        client.create().creatingParentsIfNeeded().forPath(job.config(), bytes("theirs"));
        ClientRequests requests = new ClientRequests(client, "Configuration");

        boolean written = JobStructure.ensure(
                client, List.of(job), () -> List.of(requests.createPersistent(job.config(), bytes("mine"))));

        assertThat(written).isFalse();
        assertEveryNodeExists(client, List.of(job));
        assertThat(new String(client.getData().forPath(job.config()), StandardCharsets.UTF_8))
                .isEqualTo("theirs");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsOnceAndWritesNothingWhenEveryNodeExists() throws Exception {
        CuratorFramework client = newClient();
        List<JobNodes> jobs = jobs("order", 3);
        JobStructure.ensure(client, jobs, List::of);
        RequestCounter requests = RequestCounter.attachTo(client);

        JobStructure.ensure(client, jobs, List::of);

        Counts counts = requests.counts();
        assertThat(counts.byOperation()).containsOnlyKeys("StructureMultiRead/foreground");
        assertThat(counts.total()).isEqualTo(1);
    }

    @Test
    void createsOnlyTheMissingNodesAndLeavesTheDataOfTheOthers() throws Exception {
        CuratorFramework client = newClient();
        JobNodes job = new JobNodes("order");
        client.create()
                .creatingParentsIfNeeded()
                .forPath(job.manualFire(), "1700000000000".getBytes(StandardCharsets.UTF_8));
        client.create().creatingParentsIfNeeded().forPath(job.disabledItem(3));

        JobStructure.ensure(client, List.of(job), List::of);

        assertEveryNodeExists(client, List.of(job));
        assertThat(new String(client.getData().forPath(job.manualFire()), StandardCharsets.UTF_8))
                .isEqualTo("1700000000000");
        assertThat(client.getChildren().forPath(job.disabledItems())).containsExactly("3");
    }

    @Test
    void instancesMakingSureOfTheSameJobsAtOnceAllSucceed() throws Exception {
        List<JobNodes> jobs = jobs("feed", 300);
        List<CuratorFramework> clients = List.of(newClient(), newClient(), newClient(), newClient());

        CompletableFuture.allOf(clients.stream()
                        .map(client -> CompletableFuture.runAsync(() -> JobStructure.ensure(client, jobs, List::of)))
                        .toArray(CompletableFuture[]::new))
                .join();

        assertEveryNodeExists(clients.get(0), jobs);
    }

    @Test
    void splitsTheRequestsOfMoreNodesThanOneMultiHolds() throws Exception {
        CuratorFramework client = newClient();
        List<JobNodes> jobs = jobs("tenant", 100);
        RequestCounter requests = RequestCounter.attachTo(client);

        JobStructure.ensure(client, jobs, List::of);

        int nodes = jobs.size() * jobs.get(0).structure().size();
        long multis = (nodes + ClientRequests.MAX_OPS_PER_MULTI - 1) / ClientRequests.MAX_OPS_PER_MULTI;
        assertThat(requests.counts().byOperation())
                .containsEntry("StructureMultiRead/foreground", multis)
                .containsEntry("StructureCreate/foreground", multis);
        assertEveryNodeExists(client, jobs);
    }

    private static List<JobNodes> jobs(String prefix, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> new JobNodes(prefix + "-" + i))
                .toList();
    }

    private static void assertEveryNodeExists(CuratorFramework client, List<JobNodes> jobs) throws Exception {
        for (JobNodes job : jobs) {
            for (String path : job.structure()) {
                assertThat(client.checkExists().forPath(path)).as(path).isNotNull();
            }
        }
    }
}
