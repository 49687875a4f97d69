package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * An operator switches {@code failover} off while claims written under it are open: each is judged by what it was
 * written under, so an item of a fire is never recorded failed for a run that may never have begun.
 */
class FailoverSwitchedOffTest extends JobInstanceTestSupport {

    private static final String JOB = "switched";

    private static final JobNodes NODES = new JobNodes(JOB);

    private static final JobConfiguration FAILOVER_ON = JobConfiguration.builder(JOB)
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .failover(true)
            .build();

    @Test
    void claimsMadeAheadWithTheirStartsUnderFailoverRunWhenTheirOwnerDiesAfterAnOperatorSwitchedFailoverOff()
            throws Exception {
        Instance a = scheduled("a");
        Instance b = scheduled("b");
        await().until(() -> settledAt(4, List.of(a, b)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        a.coordinator().fire(ExecutionSource.NORMAL, first);
        b.coordinator().fire(ExecutionSource.NORMAL, first);
        Instant next = first.plusSeconds(1);
        List<Integer> ofA = a.coordinator().assignment().itemsOf("a");
        // a made its claims of the next fire with their starts written, as failover on lets it.
        LedgerParts ledger = LedgerParts.of(b.client(), NODES);
        await().untilAsserted(() -> assertThat(
                        ledger.reads().read(List.of(next)).get(0).claims().values())
                .filteredOn(claim -> claim.instanceId().equals("a"))
                .extracting(Claim::item, Claim::state)
                .containsExactlyInAnyOrderElementsOf(ofA.stream()
                        .map(item -> org.assertj.core.groups.Tuple.tuple(item, ClaimState.RUNNING))
                        .toList()));

        // What an operator does with zkCli's set: rewrite the stored configuration, nothing else.
        CuratorFramework operator = newClient();
        operator.setData()
                .forPath(
                        NODES.config(),
                        JobConfigurationCodec.encode(
                                FAILOVER_ON.toBuilder().failover(false).build()));
        await().until(() -> !a.coordinator().configuration().failover()
                && !b.coordinator().configuration().failover());
        crash(a);
        await().until(() -> b.coordinator().assignment().itemsOf("b").size() == 4);
        b.coordinator().fire(ExecutionSource.NORMAL, next);

        // Every item of the fire runs once; a's, whose runs may have begun under failover on, run again as failover.
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(ledger.reads()
                                .read(List.of(next))
                                .get(0)
                                .claims()
                                .values())
                        .extracting(Claim::state)
                        .hasSize(4)
                        .containsOnly(ClaimState.DONE));
        assertThat(results(result -> result.fireTime().equals(next)))
                .extracting(result -> result.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(results(result -> result.fireTime().equals(next)
                        && ofA.contains(result.context().item())))
                .extracting(ItemResult::source)
                .containsOnly(ExecutionSource.FAILOVER);
    }

    private Instance scheduled(String id) throws InterruptedException {
        return start(id, FAILOVER_ON, context -> {}, builder -> builder.schedule(EVERY_SECOND));
    }
}
