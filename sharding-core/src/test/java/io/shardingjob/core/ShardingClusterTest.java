package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** Several independent instances, each with its own session, against one real ZooKeeper server. */
class ShardingClusterTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static JobConfiguration job(int total) {
        return JobConfiguration.builder("orderSync")
                .cron("0/10 * * * * *")
                .shardingTotalCount(total)
                .shardingItemParameters("0=Beijing,1=Shanghai,2=Guangzhou")
                .jobParameter("full")
                .build();
    }

    @Test
    void assignsEveryItemExactlyOnceAcrossThreeInstances() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");

        Assignment assignment = awaitSettled(instances, 9, "a", "b", "c");

        assertThat(assignment.itemsByInstance())
                .containsExactly(
                        Map.entry("a", List.of(0, 1, 2)),
                        Map.entry("b", List.of(3, 4, 5)),
                        Map.entry("c", List.of(6, 7, 8)));
        assertThat(instances.stream().filter(i -> i.coordinator().isLeader())).hasSize(1);
    }

    @Test
    void everyFireRunsEachItemOnceWithItsShardingContext() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        Assignment assignment = awaitSettled(instances, 9, "a", "b", "c");
        ConcurrentLinkedQueue<ShardingContext> ran = new ConcurrentLinkedQueue<>();

        List<FireReport> reports = new ArrayList<>();
        for (Instance instance : instances) {
            reports.add(instance.coordinator().fire(ran::add));
        }

        assertThat(ran).extracting(ShardingContext::item).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8);
        ShardingContext beijing =
                ran.stream().filter(c -> c.item() == 0).findFirst().orElseThrow();
        assertThat(beijing.itemParameter()).isEqualTo("Beijing");
        assertThat(beijing.jobParameter()).isEqualTo("full");
        assertThat(beijing.shardingTotalCount()).isEqualTo(9);
        assertThat(beijing.epoch()).isEqualTo(assignment.epoch());
        assertThat(beijing.taskId()).isEqualTo("orderSync@-@0,1,2@-@READY@-@a");
        assertThat(reports).allSatisfy(report -> assertThat(report.results()).allMatch(r -> r.succeeded()));
        await().atMost(WITHIN)
                .untilAsserted(
                        () -> assertThat(instances.get(0).coordinator().ledger().runningItems())
                                .isEmpty());
    }

    @Test
    void reshardsToIncludeAFourthInstanceWithoutWaitingForAFire() throws Exception {
        List<Instance> instances = new ArrayList<>(startAll(job(8), "a", "b", "c"));
        long before = awaitSettled(instances, 8, "a", "b", "c").epoch();

        instances.add(startInstance("d", job(8)));

        Assignment after = awaitSettled(instances, 8, "a", "b", "c", "d");
        assertThat(after.epoch()).isGreaterThan(before);
        assertThat(after.itemsOf("d")).hasSize(2);
    }

    @Test
    void movesTheItemsOfACrashedInstanceToTheSurvivors() throws Exception {
        List<Instance> instances = new ArrayList<>(startAll(job(9), "a", "b", "c"));
        awaitSettled(instances, 9, "a", "b", "c");
        Instance victim = instances.stream()
                .filter(i -> !i.coordinator().isLeader())
                .findFirst()
                .orElseThrow();

        crash(victim);
        instances.remove(victim);

        String[] survivors = instances.stream().map(Instance::id).toArray(String[]::new);
        Assignment after = awaitSettled(instances, 9, survivors);
        assertThat(after.itemsByInstance()).doesNotContainKey(victim.id());
    }

    @Test
    void electsANewLeaderWhenTheLeadersSessionDies() throws Exception {
        List<Instance> instances = new ArrayList<>(startAll(job(9), "a", "b", "c"));
        awaitSettled(instances, 9, "a", "b", "c");
        Instance leader = instances.stream()
                .filter(i -> i.coordinator().isLeader())
                .findFirst()
                .orElseThrow();

        crash(leader);
        instances.remove(leader);

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(instances.stream().filter(i -> i.coordinator().isLeader()))
                    .hasSize(1);
            String newLeader = instances.stream()
                    .filter(i -> i.coordinator().isLeader())
                    .findFirst()
                    .orElseThrow()
                    .id();
            assertThat(instances)
                    .allSatisfy(i -> assertThat(i.coordinator().leaderId()).contains(newLeader));
        });
        String[] survivors = instances.stream().map(Instance::id).toArray(String[]::new);
        assertThat(awaitSettled(instances, 9, survivors).itemsByInstance()).doesNotContainKey(leader.id());
    }

    @Test
    void reshardsEverywhereWhenAnOperatorChangesTheCountInTheRegistry() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        awaitSettled(instances, 9, "a", "b", "c");

        // What an operator does with zkCli's set: rewrite the stored configuration, nothing else.
        CuratorFramework operator = newClient();
        JobConfiguration edited = job(9).toBuilder().shardingTotalCount(4).build();
        operator.setData().forPath(new JobNodes("orderSync").config(), JobConfigurationCodec.encode(edited));

        Assignment after = awaitSettled(instances, 4, "a", "b", "c");
        assertThat(after.itemsByInstance()).containsEntry("a", List.of(0, 3));
        assertThat(instances)
                .allSatisfy(i -> assertThat(i.coordinator().configuration().shardingTotalCount())
                        .isEqualTo(4));
    }

    @Test
    void reshardsWhenAnInstanceChangesTheCount() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        awaitSettled(instances, 9, "a", "b", "c");

        instances.get(2).coordinator().updateShardingTotalCount(12);

        assertThat(awaitSettled(instances, 12, "a", "b", "c").itemsOf("b")).containsExactly(4, 5, 6, 7);
    }

    @Test
    void aDisabledInstanceOwnsNothingUntilEnabledAgain() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        awaitSettled(instances, 9, "a", "b", "c");

        instances.get(0).coordinator().disableInstance("b");

        Assignment disabled = awaitSettled(instances, 9, "a", "c");
        assertThat(disabled.itemsOf("b")).isEmpty();
        assertThat(instances.get(1).coordinator().fire(context -> {}).items()).isEmpty();
        await().atMost(WITHIN).until(() -> !instances.get(1).coordinator().isLeader());

        instances.get(2).coordinator().enableInstance("b");

        assertThat(awaitSettled(instances, 9, "a", "b", "c").itemsOf("b")).containsExactly(3, 4, 5);
    }

    @Test
    void theLastEnabledInstanceRunsNothingOnceDisabled() throws Exception {
        List<Instance> instances = startAll(job(3), "a");
        awaitSettled(instances, 3, "a");

        instances.get(0).coordinator().disableInstance("a");
        await().atMost(WITHIN)
                .until(() -> instances.get(0).coordinator().disabledInstances().contains("a"));

        FireReport report = instances.get(0).coordinator().fire(context -> {});
        assertThat(report.items()).isEmpty();
        assertThat(report.skipReason()).contains("disabled");
    }

    @Test
    void aDisabledItemIsSkippedByItsOwner() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        awaitSettled(instances, 9, "a", "b", "c");

        instances.get(2).coordinator().disableItem(1);
        await().atMost(WITHIN)
                .until(() -> instances.get(0).coordinator().disabledItems().contains(1));

        FireReport report = instances.get(0).coordinator().fire(context -> {});
        assertThat(report.items()).containsExactly(0, 2);
        assertThat(report.skipped()).containsEntry(1, "disabled");
    }

    @Test
    void concurrentStartOfFiveInstancesGivesOneLeaderAndOneAssignment() throws Exception {
        String[] ids = {"a", "b", "c", "d", "e"};
        List<Instance> instances = new ArrayList<>();
        for (String id : ids) {
            instances.add(newInstance(id, job(10)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(ids.length);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> starts = new ArrayList<>();
        for (Instance instance : instances) {
            starts.add(pool.submit(() -> {
                go.await();
                instance.coordinator().start();
                return null;
            }));
        }
        go.countDown();
        for (Future<?> start : starts) {
            start.get();
        }
        pool.shutdown();

        Assignment assignment = awaitSettled(instances, 10, ids);
        assertThat(instances.stream().filter(i -> i.coordinator().isLeader())).hasSize(1);
        assertThat(assignment.itemsByInstance().values())
                .allSatisfy(items -> assertThat(items).hasSize(2));
    }

    @Test
    void anInstanceWhoseSessionExpiredRegistersAgainAndGetsItems() throws Exception {
        List<Instance> instances = startAll(job(9), "a", "b", "c");
        awaitSettled(instances, 9, "a", "b", "c");
        Instance c = instances.get(2);
        long oldSession = c.client().getZookeeperClient().getZooKeeper().getSessionId();

        expireSession(c.client());

        String registration = new JobNodes("orderSync").instance("c");
        await().atMost(WITHIN).untilAsserted(() -> {
            long session = c.client().getZookeeperClient().getZooKeeper().getSessionId();
            assertThat(session).isNotEqualTo(oldSession);
            Stat registered = c.client().checkExists().forPath(registration);
            assertThat(registered).isNotNull();
            assertThat(registered.getEphemeralOwner()).isEqualTo(session);
        });
        Assignment after = awaitSettled(instances, 9, "a", "b", "c");
        assertThat(after.itemsOf("c")).isNotEmpty();
        await().atMost(WITHIN)
                .untilAsserted(
                        () -> assertThat(c.coordinator().fire(context -> {}).items())
                                .containsExactlyElementsOf(after.itemsOf("c")));
    }

    @Test
    void aGracefulCloseHandsItemsOverAtOnce() throws Exception {
        List<Instance> instances = new ArrayList<>(startAll(job(6), "a", "b", "c"));
        awaitSettled(instances, 6, "a", "b", "c");
        Instance leaving = instances.remove(0);

        leaving.coordinator().close();

        // Well inside the session timeout: the registration was deleted, not left to expire.
        Assignment after = awaitSettled(instances, Duration.ofMillis(SESSION_TIMEOUT.toMillis() - 200), 6, "b", "c");
        assertThat(after.itemsOf("b")).hasSize(3);
    }

    private List<Instance> startAll(JobConfiguration configuration, String... ids) throws Exception {
        List<Instance> instances = new ArrayList<>();
        for (String id : ids) {
            instances.add(startInstance(id, configuration));
        }
        return instances;
    }

    private static Assignment awaitSettled(List<Instance> instances, int total, String... expectedOwners) {
        return awaitSettled(instances, WITHIN, total, expectedOwners);
    }

    /**
     * Waits until every instance sees the same assignment, no reshard is pending, the assignment is for the expected
     * instances and covers every item exactly once.
     */
    private static Assignment awaitSettled(
            List<Instance> instances, Duration within, int total, String... expectedOwners) {
        await().atMost(within).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
            Assignment first = instances.get(0).coordinator().assignment();
            for (Instance instance : instances) {
                assertThat(instance.coordinator().isReshardPending()).isFalse();
                assertThat(instance.coordinator().assignment()).isEqualTo(first);
            }
            assertThat(first.shardingTotalCount()).isEqualTo(total);
            assertThat(first.itemsByInstance().keySet()).containsExactlyInAnyOrder(expectedOwners);
            List<Integer> all = first.itemsByInstance().values().stream()
                    .flatMap(List::stream)
                    .sorted()
                    .toList();
            assertThat(all).isEqualTo(IntStream.range(0, total).boxed().toList());
        });
        return instances.get(0).coordinator().assignment();
    }
}
