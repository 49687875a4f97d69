package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * An instance that stands by stays registered and takes no items, against a real ZooKeeper: from its start when it
 * stands by before it, after its session expired and it registered again, and until it resumes; a close leaves no
 * mark behind.
 */
class StandByTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static final JobConfiguration FOUR_ITEMS = JobConfiguration.builder("settlement")
            .cron("0 0 0 * * ?")
            .shardingTotalCount(4)
            .build();

    private static final String MARK = "/settlement/leaving/a";

    @Test
    void anInstanceStandingByBeforeItStartsRegistersButIsGivenNoItemUntilItResumes() throws Exception {
        Instance b = startInstance("b", FOUR_ITEMS);
        Instance a = newInstance("a", FOUR_ITEMS);
        a.coordinator().standBy();

        a.coordinator().start();

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(b.coordinator().liveInstances()).containsExactlyInAnyOrder("a", "b");
            assertThat(b.coordinator().isReshardPending()).isFalse();
            assertThat(b.coordinator().assignment().itemsByInstance()).containsOnlyKeys("b");
        });
        assertThat(a.coordinator().localItems()).isEmpty();
        assertThat(a.coordinator().isStandingBy()).isTrue();

        a.coordinator().resume();

        await().atMost(WITHIN).until(() -> settled(List.of(a, b)));
        assertThat(a.coordinator().localItems()).hasSize(2);
        assertThat(a.coordinator().isStandingBy()).isFalse();
    }

    @Test
    void anInstanceStandingByIsMarkedAgainWhenItsSessionExpiredAndItRegisteredAgain() throws Exception {
        Instance a = startInstance("a", FOUR_ITEMS);
        Instance b = startInstance("b", FOUR_ITEMS);
        await().atMost(WITHIN).until(() -> settled(List.of(a, b)));
        a.coordinator().standBy();
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(b.coordinator().assignment().itemsByInstance())
                        .containsOnlyKeys("b"));
        long expired = a.client().getZookeeperClient().getZooKeeper().getSessionId();

        expireSession(a.client());

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(a.client().getZookeeperClient().getZooKeeper().getSessionId())
                    .isNotEqualTo(expired);
            assertThat(b.client().checkExists().forPath("/settlement/instances/a"))
                    .isNotNull();
            assertThat(b.client().checkExists().forPath(MARK)).isNotNull();
            assertThat(b.coordinator().isReshardPending()).isFalse();
            assertThat(b.coordinator().assignment().itemsByInstance()).containsOnlyKeys("b");
        });
        assertThat(b.client().checkExists().forPath(MARK).getEphemeralOwner())
                .isEqualTo(a.client().getZookeeperClient().getZooKeeper().getSessionId());
    }

    @Test
    void aMarkLeftByAnotherSessionIsReplacedByOneOfOursSoThatItsExpiryGivesNoItems() throws Exception {
        Instance b = startInstance("b", FOUR_ITEMS);
        CuratorFramework earlier = newClient();
        earlier.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL)
                .forPath(MARK);
        Instance a = newInstance("a", FOUR_ITEMS);
        a.coordinator().standBy();
        a.coordinator().start();

        assertThat(b.client().checkExists().forPath(MARK).getEphemeralOwner())
                .isEqualTo(a.client().getZookeeperClient().getZooKeeper().getSessionId());
        earlier.close();
        await().during(Duration.ofSeconds(1)).atMost(WITHIN).untilAsserted(() -> {
            assertThat(b.client().checkExists().forPath(MARK)).isNotNull();
            assertThat(b.coordinator().assignment().itemsByInstance()).containsOnlyKeys("b");
        });
    }

    @Test
    void aCloseOfAnInstanceStandingByLeavesNeitherItsRegistrationNorItsMark() throws Exception {
        Instance a = startInstance("a", FOUR_ITEMS);
        a.coordinator().standBy();
        await().atMost(WITHIN).until(() -> a.client().checkExists().forPath(MARK) != null);

        a.coordinator().close();
        a.coordinator().resume();

        assertThat(a.client().checkExists().forPath(MARK)).isNull();
        assertThat(a.client().checkExists().forPath("/settlement/instances/a")).isNull();
    }

    @Test
    void standingByReturnsAtOnceAndItsStageCompletesOnceTheMarkIsWritten() throws Exception {
        Instance a = startInstance("a", FOUR_ITEMS);

        CompletableFuture<Void> marked = a.coordinator().standBy().toCompletableFuture();

        marked.get(15, TimeUnit.SECONDS);
        assertThat(a.client().checkExists().forPath(MARK)).isNotNull();
        a.coordinator().resume().toCompletableFuture().get(15, TimeUnit.SECONDS);
        assertThat(a.client().checkExists().forPath(MARK)).isNull();
    }

    @Test
    void quickChangesOfReadinessWriteTheMarkInTheOrderOfTheCalls() throws Exception {
        Instance a = startInstance("a", FOUR_ITEMS);
        CompletableFuture<Void> last = null;

        for (int change = 0; change < 20; change++) {
            a.coordinator().standBy();
            a.coordinator().resume();
            last = a.coordinator().standBy().toCompletableFuture();
        }

        last.get(15, TimeUnit.SECONDS);
        assertThat(a.client().checkExists().forPath(MARK)).isNotNull();
        assertThat(a.coordinator().resume().toCompletableFuture().get(15, TimeUnit.SECONDS))
                .isNull();
        assertThat(a.client().checkExists().forPath(MARK)).isNull();
    }

    @Test
    void aStandByWhileZooKeeperIsUnreachableDoesNotHoldTheCallerAndItsFailureCompletesTheStage() throws Exception {
        Instance a = startInstance("a", FOUR_ITEMS);
        server.stop();
        try {
            long calling = System.nanoTime();
            CompletableFuture<Void> marked = a.coordinator().standBy().toCompletableFuture();

            assertThat(Duration.ofNanos(System.nanoTime() - calling)).isLessThan(Duration.ofSeconds(1));
            assertThat(a.coordinator().isStandingBy()).isTrue();
            await().atMost(Duration.ofMinutes(1)).until(marked::isDone);
            assertThat(marked).isCompletedExceptionally();
        } finally {
            server.restart();
        }
    }

    private static boolean settled(List<Instance> instances) {
        JobCoordinator first = instances.get(0).coordinator();
        return instances.stream()
                .map(Instance::coordinator)
                .allMatch(coordinator -> !coordinator.isReshardPending()
                        && coordinator.assignment().equals(first.assignment())
                        && coordinator.localItems().size() == 4 / instances.size());
    }
}
