package io.shardingjob.core.internal.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.internal.registry.JobCache;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import io.shardingjob.core.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The election against a real ZooKeeper: one leader among the candidates, named in the leader's node; the next one
 * when it leaves, its session expires or its node is deleted; none while its connection is suspended.
 */
class LeaderElectionTest extends ZooKeeperTestSupport {

    private final JobNodes job = new JobNodes("report");

    private final List<ExecutorService> executors = new ArrayList<>();

    @AfterEach
    void stopExecutors() {
        executors.forEach(ExecutorService::shutdownNow);
    }

    /** One instance in the election: its client, its job cache and what it was told of its leadership. */
    private record Candidate(String id, CuratorFramework client, LeaderElection election, List<Boolean> told) {}

    @Test
    void oneOfThreeCandidatesLeadsAndPublishesItsId() throws Exception {
        List<Candidate> all = List.of(candidate("a"), candidate("b"), candidate("c"));

        Candidate leader = awaitOneLeader(all);

        await().untilAsserted(() -> assertThat(leaderNode(leader.client())).isEqualTo(leader.id()));
        await().untilAsserted(() -> assertThat(leader.told()).containsExactly(true));
        assertThat(latchChildren(leader.client())).hasSize(3);
    }

    @Test
    void aLeaderThatLeavesHandsOverToTheNextCandidate() throws Exception {
        List<Candidate> all = List.of(candidate("a"), candidate("b"), candidate("c"));
        Candidate first = awaitOneLeader(all);

        first.election().leave();

        List<Candidate> others = all.stream().filter(each -> each != first).toList();
        Candidate next = awaitOneLeader(others);
        assertThat(first.election().isLeader()).isFalse();
        await().untilAsserted(() -> {
            assertThat(latchChildren(next.client())).hasSize(2);
            assertThat(leaderNode(next.client())).isEqualTo(next.id());
            assertThat(first.told()).containsExactly(true, false);
        });
    }

    @Test
    void aLeaderWhoseSessionExpiredStandsAgainBehindTheOthers() throws Exception {
        List<Candidate> all = List.of(candidate("a"), candidate("b"), candidate("c"));
        Candidate first = awaitOneLeader(all);

        expireSession(first.client());

        Candidate next =
                awaitOneLeader(all.stream().filter(each -> each != first).toList());
        await().untilAsserted(() -> assertThat(latchChildren(next.client()))
                .as("the expired one stood again under its new session")
                .hasSize(3));
        assertThat(first.election().isLeader()).isFalse();
        assertThat(next.election().isLeader()).isTrue();
    }

    @Test
    void aCandidateWhoseNodeWasDeletedStandsAgain() throws Exception {
        List<Candidate> all = List.of(candidate("a"), candidate("b"));
        Candidate first = awaitOneLeader(all);
        CuratorFramework operator = newClient();
        String leading = Candidates.leader(latchChildren(operator)).orElseThrow();

        operator.delete().forPath(job.leaderLatch() + "/" + leading);

        Candidate next =
                awaitOneLeader(all.stream().filter(each -> each != first).toList());
        await().untilAsserted(
                        () -> assertThat(latchChildren(operator)).hasSize(2).doesNotContain(leading));
        assertThat(first.election().isLeader()).isFalse();
        assertThat(next.election().isLeader()).isTrue();
    }

    @Test
    void aSuspendedLeaderDoesNotLeadAndLeadsAgainBackOnItsSession() throws Exception {
        // Ticks of 500 ms let sessions of 10 s live through the cut (the shared server's cap them at 2 s).
        try (TestingServer patient = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                TcpProxy proxy = new TcpProxy(patient.getPort())) {
            Candidate first = candidate("a", newClient(proxy.connectString(), Duration.ofSeconds(10)));
            awaitOneLeader(List.of(first));
            Candidate second = candidate("b", newClient(patient.getConnectString(), Duration.ofSeconds(10)));
            assertThat(latchChildren(second.client())).hasSize(2);

            proxy.cut();
            await().until(() -> !first.election().isLeader());
            assertThat(second.election().isLeader())
                    .as("the suspended leader's session lives: its node still stands first")
                    .isFalse();
            proxy.restore();

            await().until(() -> first.election().isLeader());
            assertThat(second.election().isLeader()).isFalse();
            assertThat(latchChildren(second.client())).hasSize(2);
        }
    }

    @Test
    void aLeaveWhoseDeleteIsLostInABlipHandsOverOnceTheConnectionIsBackOnTheSameSession() throws Exception {
        // Ticks of 500 ms let sessions of 10 s live through the blip, as a client shared by other jobs keeps its own.
        try (TestingServer patient = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                TcpProxy proxy = new TcpProxy(patient.getPort())) {
            Candidate first = candidate("a", newClient(proxy.connectString(), Duration.ofSeconds(10)));
            awaitOneLeader(List.of(first));
            Candidate second = candidate("b", newClient(patient.getConnectString(), Duration.ofSeconds(10)));
            await().untilAsserted(
                            () -> assertThat(latchChildren(second.client())).hasSize(2));
            String firstNode = Candidates.leader(latchChildren(second.client())).orElseThrow();
            long session = sessionOf(first);

            proxy.passPingsOnly();
            first.election().leave();
            await().until(() -> proxy.holdsPacketNaming(firstNode));
            // The delete is lost with the connection; the session lives on.
            proxy.cut();
            await().until(() -> !first.client().getZookeeperClient().isConnected());
            proxy.passAll();
            proxy.restore();
            await().until(() -> first.client().getZookeeperClient().isConnected());
            assertThat(sessionOf(first)).as("the blip kept the session").isEqualTo(session);

            await().atMost(Duration.ofSeconds(10)).until(() -> second.election().isLeader());
            assertThat(latchChildren(second.client())).hasSize(1).doesNotContain(firstNode);
            assertThat(first.election().isLeader()).isFalse();
        }
    }

    @Test
    void aNodeWhoseCreateAnswerWasLostWhenItsCandidateLeftIsFoundAndDeletedOnceTheConnectionIsBack() throws Exception {
        try (TestingServer patient = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
                TcpProxy proxy = new TcpProxy(patient.getPort())) {
            CuratorFramework direct = newClient(patient.getConnectString(), Duration.ofSeconds(10));
            // The create reaches the server; its answer, and all that follows but pings, is held.
            proxy.observe((toServer, packet) -> {
                if (toServer && new String(packet, StandardCharsets.ISO_8859_1).contains("-latch-")) {
                    proxy.passPingsOnly();
                }
            });
            Candidate first = candidate("a", newClient(proxy.connectString(), Duration.ofSeconds(10)));
            await().untilAsserted(() -> assertThat(latchChildren(direct)).hasSize(1));
            long session = sessionOf(first);
            Candidate second = candidate("b", direct);
            await().untilAsserted(() -> assertThat(latchChildren(direct)).hasSize(2));

            first.election().leave();
            proxy.cut();
            // Two reconnections refused: what the client sent since the cut (a listing, say) failed with them.
            long refused = proxy.refusedConnections();
            await().until(() -> proxy.refusedConnections() >= refused + 2);
            proxy.observe((toServer, packet) -> {});
            proxy.passAll();
            proxy.restore();
            await().until(() -> first.client().getZookeeperClient().isConnected());
            assertThat(sessionOf(first)).as("the blip kept the session").isEqualTo(session);

            await().atMost(Duration.ofSeconds(10)).until(() -> second.election().isLeader());
            assertThat(latchChildren(direct)).hasSize(1);
            assertThat(first.election().isLeader()).isFalse();
        }
    }

    @Test
    void aCandidateThatLeavesAndJoinsAgainStandsLast() throws Exception {
        Candidate first = candidate("a");
        awaitOneLeader(List.of(first));
        Candidate second = candidate("b");

        first.election().leave();
        awaitOneLeader(List.of(first, second));
        first.election().join();

        await().untilAsserted(() -> assertThat(latchChildren(first.client())).hasSize(2));
        assertThat(second.election().isLeader()).isTrue();
        assertThat(first.election().isLeader()).isFalse();
    }

    private Candidate candidate(String id) throws Exception {
        return candidate(id, newClient());
    }

    private Candidate candidate(String id, CuratorFramework client) {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executors.add(executor);
        JobStructure.ensure(client, List.of(job), List::of);
        JobCache cache = closeAfterTest(new JobCache(client, job, executor));
        cache.start(Duration.ofSeconds(10));
        List<Boolean> told = new CopyOnWriteArrayList<>();
        LeaderElection election = closeAfterTest(new LeaderElection(client, job, id, cache, executor, told::add));
        election.join();
        return new Candidate(id, client, election, told);
    }

    /** Waits until exactly one of them leads, and stays the only one for a moment. */
    private static Candidate awaitOneLeader(List<Candidate> candidates) {
        await().untilAsserted(() -> assertThat(candidates.stream()
                        .filter(each -> each.election().isLeader())
                        .count())
                .isEqualTo(1));
        return candidates.stream()
                .filter(each -> each.election().isLeader())
                .findFirst()
                .orElseThrow();
    }

    private static long sessionOf(Candidate candidate) throws Exception {
        return candidate.client().getZookeeperClient().getZooKeeper().getSessionId();
    }

    private List<String> latchChildren(CuratorFramework client) throws Exception {
        return client.getChildren().forPath(job.leaderLatch());
    }

    private String leaderNode(CuratorFramework client) throws Exception {
        return new String(client.getData().forPath(job.leaderInstance()), StandardCharsets.UTF_8);
    }
}
