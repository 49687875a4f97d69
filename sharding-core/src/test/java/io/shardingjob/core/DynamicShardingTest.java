package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Sharding broadcast on a real ZooKeeper: the total follows the live instances, one item each. */
class DynamicShardingTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final JobConfiguration BROADCAST = JobConfiguration.builder("broadcast")
            .cron("0 0 0 * * *")
            .dynamicSharding(true)
            .build();

    @Test
    void theTotalFollowsTwoThenThreeThenTwoInstancesAndSurvivorsKeepTheirItems() throws Exception {
        Instance a = start("a", BROADCAST, context -> {});
        Instance b = start("b", BROADCAST, context -> {});
        List<Instance> cluster = new ArrayList<>(List.of(a, b));
        await().atMost(WITHIN).until(() -> settledAt(2, cluster));
        assertThat(a.coordinator().assignment().itemsByInstance()).isEqualTo(Map.of("a", List.of(0), "b", List.of(1)));
        assertThat(fire(cluster)).containsExactlyInAnyOrder("a:0/2", "b:1/2");

        Instance c = start("c", BROADCAST, context -> {});
        cluster.add(c);
        await().atMost(WITHIN).until(() -> settledAt(3, cluster));
        assertThat(fire(cluster)).containsExactlyInAnyOrder("a:0/3", "b:1/3", "c:2/3");

        a.coordinator().close();
        cluster.remove(a);
        await().atMost(WITHIN).until(() -> settledAt(2, cluster));
        // b keeps item 1; only c, whose item 2 no longer exists, moves, to the item a left.
        assertThat(fire(cluster)).containsExactlyInAnyOrder("c:0/2", "b:1/2");
    }

    private static List<String> fire(List<Instance> cluster) {
        Instant fireTime = Instant.now();
        return cluster.stream()
                .map(instance -> instance.coordinator().fire(ExecutionSource.NORMAL, fireTime))
                .map(FireReport::results)
                .flatMap(List::stream)
                .map(DynamicShardingTest::describe)
                .toList();
    }

    private static String describe(ItemResult result) {
        return result.context().instanceId() + ":" + result.context().item() + "/"
                + result.context().shardingTotalCount();
    }
}
