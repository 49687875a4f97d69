package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.sharding.Assignment;
import io.shardingjob.core.testing.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;

/**
 * An operator's trigger, {@link JobCoordinator#trigger}, across three instances on a real ZooKeeper: one fire of every
 * item, each item once on its owner, with the fire's job parameter, whether each instance hears of the fire, misses it,
 * stops or is cut off.
 */
class ManualTriggerTest extends JobInstanceTestSupport {

    private static final JobConfiguration SIX_ITEMS = JobConfiguration.builder("manual")
            .cron("0 0 0 1 1 *")
            .shardingTotalCount(6)
            .jobParameter("configured")
            .failover(true)
            .build();

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** No periodic audit within a test: what runs promptly was started by the announcement, not made up. */
    private static final UnaryOperator<JobCoordinatorBuilder> NO_PERIODIC_AUDIT =
            builder -> builder.reconcileInterval(Duration.ofMinutes(5));

    @Test
    void aTriggerRunsEveryItemOfOneFireOnceEachOnItsOwnerPromptlyWithTheGivenParameter() throws Exception {
        List<Instance> all = startThree(SIX_ITEMS, NO_PERIODIC_AUDIT);
        Assignment assignment = all.get(0).coordinator().assignment();

        java.time.Instant fireTime = all.get(1).coordinator().trigger("rerun of the 20th");

        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 6);
        assertThat(runsOf(fireTime)).allSatisfy(run -> {
            assertThat(run.source()).isEqualTo(ExecutionSource.MANUAL);
            assertThat(run.context().jobParameter()).isEqualTo("rerun of the 20th");
            assertThat(run.context().instanceId())
                    .isEqualTo(assignment.ownersByItem().get(run.context().item()));
            // Before any audit would count the fire as missed: every instance started its items when it heard of it.
            assertThat(run.start()).isBefore(fireTime.plus(LedgerRules.LATENESS));
        });
        assertThat(runsOf(fireTime))
                .extracting(run -> run.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        // The instance that asked heard of its own fire too: the ledger's claims let it run its items once.
        await().during(Duration.ofMillis(1500))
                .atMost(WITHIN)
                .until(() -> runsOf(fireTime).size() == 6);
    }

    @Test
    void aRepeatedTriggerMakesASecondDistinctFireAndNoParameterMeansTheConfiguredOne() throws Exception {
        List<Instance> all = startThree(SIX_ITEMS, NO_PERIODIC_AUDIT);

        java.time.Instant first = all.get(0).coordinator().trigger("first");
        java.time.Instant second = all.get(0).coordinator().trigger(null);

        assertThat(second).isAfter(first);
        await().atMost(WITHIN)
                .until(() -> runsOf(first).size() == 6 && runsOf(second).size() == 6);
        assertThat(runsOf(first))
                .extracting(run -> run.context().jobParameter())
                .containsOnly("first");
        assertThat(runsOf(second))
                .extracting(run -> run.context().jobParameter())
                .containsOnly("configured");
        assertThat(runsOf(second)).extracting(run -> run.context().item()).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    }

    @Test
    void anInstanceThatMissesTheAnnouncementMakesItsItemsUpFromTheRecordEvenUnderTheSkipPolicy() throws Exception {
        JobConfiguration skipping =
                SIX_ITEMS.toBuilder().misfirePolicy(MisfirePolicy.SKIP).build();
        Instance a = start("a", skipping, context -> {});
        Instance b = start("b", skipping, context -> {});
        // Hears of no manual fire: as if every announcement were coalesced or lost while its cache reconnected.
        Instance c = start("c", skipping, context -> {}, builder -> builder.manualFireHandler(fireTime -> {}));
        await().until(() -> settledAt(6, List.of(a, b, c)));
        List<Integer> itemsOfC = a.coordinator().assignment().itemsOf("c");

        java.time.Instant fireTime = a.coordinator().trigger("late but whole");

        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 6);
        assertThat(runsOf(fireTime)).allSatisfy(run -> {
            assertThat(run.source()).isEqualTo(ExecutionSource.MANUAL);
            assertThat(run.context().jobParameter()).isEqualTo("late but whole");
        });
        assertThat(runsOf(fireTime).stream()
                        .filter(run -> run.context().instanceId().equals("c"))
                        .map(run -> run.context().item()))
                .containsExactlyInAnyOrderElementsOf(itemsOfC);
    }

    @Test
    void aTriggerRightAfterAnOwnerStoppedStillRunsItsItemsOnceWithTheParameter() throws Exception {
        List<Instance> all = startThree(SIX_ITEMS, builder -> builder);

        all.get(2).coordinator().close();
        java.time.Instant fireTime = all.get(0).coordinator().trigger("after a stop");

        await().atMost(WITHIN).until(() -> runsOf(fireTime).size() == 6);
        assertThat(runsOf(fireTime)).allSatisfy(run -> {
            assertThat(run.source()).isEqualTo(ExecutionSource.MANUAL);
            assertThat(run.context().jobParameter()).isEqualTo("after a stop");
            assertThat(run.context().instanceId()).isIn("a", "b");
        });
        assertThat(runsOf(fireTime))
                .extracting(run -> run.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    }

    @Test
    void theItemsOfAnOwnerCutOffWhileRunningThemAreTakenOverWithTheFiresParameter() throws Exception {
        Set<Integer> startedOnC = ConcurrentHashMap.newKeySet();
        Instance a = start("a", SIX_ITEMS, context -> {});
        Instance b = start("b", SIX_ITEMS, context -> {});
        TcpProxy proxy = closeAfterTest(new TcpProxy(server.getPort()));
        JobCoordinator c = startBehind(proxy, "c", context -> {
            startedOnC.add(context.item());
            // Runs until its instance is cut off: the connection guard interrupts it.
            Thread.sleep(Long.MAX_VALUE);
        });
        await().until(() -> settledAt(6, List.of(a, b, new Instance(null, c))));
        List<Integer> itemsOfC = a.coordinator().assignment().itemsOf("c");

        java.time.Instant fireTime = b.coordinator().trigger("taken over");
        await().atMost(WITHIN).until(() -> startedOnC.containsAll(itemsOfC));
        proxy.cut();

        // The session of c expires and its claims are taken over, with the parameter its fire was recorded with.
        await().atMost(WITHIN).until(() -> completedRunsOf(fireTime).size() == 6);
        Map<Integer, List<ItemResult>> byItem = completedRunsOf(fireTime).stream()
                .collect(Collectors.groupingBy(run -> run.context().item()));
        assertThat(byItem).containsOnlyKeys(0, 1, 2, 3, 4, 5);
        assertThat(byItem.values()).allSatisfy(runs -> assertThat(runs).hasSize(1));
        for (int item : itemsOfC) {
            ItemResult run = byItem.get(item).get(0);
            assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER);
            assertThat(run.context().instanceId()).isIn("a", "b");
            assertThat(run.context().jobParameter()).isEqualTo("taken over");
        }
    }

    @Test
    void aDisabledJobRefusesATrigger() throws Exception {
        Instance a = start("a", SIX_ITEMS.toBuilder().disabled(true).build(), context -> {});

        assertThatThrownBy(() -> a.coordinator().trigger("no"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("disabled");
    }

    private List<Instance> startThree(JobConfiguration job, UnaryOperator<JobCoordinatorBuilder> more)
            throws InterruptedException {
        List<Instance> all = List.of(
                start("a", job, context -> {}, more),
                start("b", job, context -> {}, more),
                start("c", job, context -> {}, more));
        await().until(() -> settledAt(6, all));
        return all;
    }

    /** A coordinator whose client reaches ZooKeeper through the proxy, so that the test can cut it off. */
    private JobCoordinator startBehind(TcpProxy proxy, String id, ItemExecutor job) throws InterruptedException {
        CuratorFramework client = closeAfterTest(CuratorFrameworkFactory.builder()
                .connectString(proxy.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs(1000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 200))
                .build());
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        ExecutorService pool = Executors.newCachedThreadPool();
        closeAfterTest(pool::shutdownNow);
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, SIX_ITEMS)
                .instanceId(id)
                .reconcileInterval(Duration.ofMillis(300))
                .shardingWaitTimeout(Duration.ofSeconds(5))
                .shutdownGracePeriod(Duration.ofMillis(500))
                .job(job, pool)
                .listener(results::add)
                .build());
        // Closed before its coordinator: cut off, it could leave nothing cleanly, only stop its threads.
        closeAfterTest(client::close);
        coordinator.start();
        return coordinator;
    }

    private List<ItemResult> runsOf(java.time.Instant fireTime) {
        return results(result -> result.fireTime().equals(fireTime));
    }

    private List<ItemResult> completedRunsOf(java.time.Instant fireTime) {
        return results(result -> result.fireTime().equals(fireTime) && result.succeeded());
    }
}
