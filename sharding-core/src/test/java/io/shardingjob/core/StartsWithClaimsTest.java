package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The claims a fire creates at its instant (an operator's fire, or any fire of a job whose schedule the core does not
 * know): with failover on, those of the runs expected to leave the item executor's queue first carry their starts, so
 * those runs begin with no second write; with failover off every run writes its own start, since a claim left
 * {@code RUNNING} by a process killed before its run began would be recorded failed.
 */
class StartsWithClaimsTest extends JobInstanceTestSupport {

    private static final String JOB = "starts-with-claims";

    private static final int ITEMS = 8;

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void withFailoverAFiresClaimsCarryTheStartsOfTheRunsItsTrivialItemsLeaveTheQueueWith(boolean failover)
            throws Exception {
        JobConfiguration job = JobConfiguration.builder(JOB)
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(ITEMS)
                .failover(failover)
                .build();
        // No schedule told to the core: every fire claims its items at its instant, none ahead.
        Instance only = start("only", job, context -> {}, builder -> builder, Duration.ofSeconds(30));
        await().until(() -> settledAt(ITEMS, List.of(only)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        // The first fires tell this instance how long the job's runs hold their thread (StartBatch's pace): until then
        // one run at a time is expected to leave the queue, and only the first claim carries its start; a run that
        // waited for its start write held its thread for a round trip, a pace the measure leaves as runs begin without
        // one. So fires go on until one had every claim carry its start, at most twenty.
        Instant fireTime = first;
        List<Integer> versions = List.of();
        for (int fire = 0; fire < 20 && !(failover && versions.equals(List.of(1, 1, 1, 1, 1, 1, 1, 1))); fire++) {
            fireTime = first.plusMillis(fire);
            FireReport report = only.coordinator().fire(ExecutionSource.NORMAL, fireTime);
            assertThat(report.results()).hasSize(ITEMS).allMatch(ItemResult::succeeded);
            Instant ran = fireTime;
            Map<Integer, Long> runs = results(result -> result.fireTime().equals(ran)).stream()
                    .collect(Collectors.groupingBy(result -> result.context().item(), Collectors.counting()));
            assertThat(runs)
                    .hasSize(ITEMS)
                    .allSatisfy((item, count) -> assertThat(count).isOne());
            versions = versions(only, fireTime);
            // Created and ended, its start written with its creation; or created, started and ended.
            assertThat(versions)
                    .as("versions of the claims of fire %d", fire)
                    .isSubsetOf(failover ? List.of(1, 2) : List.of(2));
        }
        if (failover) {
            assertThat(versions).as("versions of the claims of the last fire").containsOnly(1);
        }
    }

    private static List<Integer> versions(Instance instance, Instant fireTime) throws Exception {
        JobNodes nodes = new JobNodes(JOB);
        List<Integer> versions = new ArrayList<>();
        for (int item = 0; item < ITEMS; item++) {
            Stat stat = instance.client().checkExists().forPath(nodes.claim(fireTime, item));
            assertThat(stat).as("claim of item %d", item).isNotNull();
            versions.add(stat.getVersion());
        }
        return versions;
    }
}
