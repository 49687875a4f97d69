package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * A direct executor ({@code Runnable::run}) never lends the items a coordination thread, against a real ZooKeeper: the
 * builder refuses one at start, and a synchronous fire given one runs its items on its caller's thread.
 */
class DirectExecutorTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    private static final JobConfiguration FOUR_ITEMS_ONE_RETRY = JobConfiguration.builder("settlement")
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .retries(1)
            .build();

    @Test
    void refusesADirectItemExecutorAtStartNamingTheJobAndTheSetting() throws Exception {
        CuratorFramework client = newClient();
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, FOUR_ITEMS_ONE_RETRY)
                .instanceId("a")
                .job(context -> {}, Runnable::run)
                .build());

        assertThatThrownBy(coordinator::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Job 'settlement'")
                .hasMessageContaining("itemExecutor")
                .hasMessageContaining("calling thread");
        assertThat(coordinator.isStarted()).isFalse();
        assertThat(client.checkExists().forPath(new JobNodes("settlement").instance("a")))
                .as("nothing registered")
                .isNull();
    }

    @Test
    void aSynchronousFireWithADirectExecutorRunsEveryItemAndItsRetryOnTheCallingThread() throws Exception {
        Instance instance = startInstance("a", FOUR_ITEMS_ONE_RETRY);
        await().atMost(WITHIN)
                .until(() -> instance.coordinator().localItems().size() == 4
                        && !instance.coordinator().isReshardPending());
        Set<Integer> failedOnce = ConcurrentHashMap.newKeySet();
        Set<Thread> itemThreads = ConcurrentHashMap.newKeySet();
        ItemExecutor failsFirstTime = context -> {
            itemThreads.add(Thread.currentThread());
            if (failedOnce.add(context.item())) {
                throw new IllegalStateException("first attempt of item " + context.item());
            }
        };

        for (int fire = 0; fire < 3; fire++) {
            failedOnce.clear();
            itemThreads.clear();
            CompletableFuture<Thread> caller = new CompletableFuture<>();
            CompletableFuture<FireReport> report = CompletableFuture.supplyAsync(() -> {
                caller.complete(Thread.currentThread());
                return instance.coordinator().fire(failsFirstTime, Runnable::run);
            });

            // Before, the items ran on the thread that completed the claims, and a retry's claim write waited for it.
            List<ItemResult> results =
                    report.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS).results();
            assertThat(results).hasSize(8);
            assertThat(results.stream()
                            .filter(ItemResult::succeeded)
                            .map(result -> result.context().item()))
                    .containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(itemThreads).containsExactly(caller.join());
        }
    }
}
