package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A job on demand (cron {@code -}) on a real ZooKeeper: registered and sharded like any job, it fires only when
 * triggered. Its instances are given a schedule that would fire every second if it were asked, so that a fire the
 * ledger's keeper or an audit took as due would show: none may be recorded, nor made up, while the clock runs.
 */
class OnDemandJobTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** Several periodic audits and upkeeps of the leader (every 300 ms here), over three "fires" of the schedule. */
    private static final Duration A_FEW_SECONDS = Duration.ofSeconds(3);

    private static final JobConfiguration ON_DEMAND =
            JobConfiguration.builder("onDemand").cron("-").shardingTotalCount(6).build();

    @Test
    void aJobOnDemandIsShardedRunsEveryItemOnceWhenTriggeredAndRecordsNoOtherFire() throws Exception {
        Instance a = start("a", ON_DEMAND, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        Instance b = start("b", ON_DEMAND, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        // Hears of no manual fire: its items of the trigger are made up by its audit, from the fire's record.
        Instance c = start(
                "c",
                ON_DEMAND,
                context -> {},
                builder -> builder.schedule(EVERY_SECOND).manualFireHandler(fireTime -> {}));
        await().atMost(WITHIN).until(() -> settledAt(6, List.of(a, b, c)));
        LedgerParts ledger = LedgerParts.of(a.client(), new JobNodes("onDemand"));
        assertThat(a.coordinator().configuration().isOnDemand()).isTrue();

        Instant fireTime = b.coordinator().trigger("by hand");

        await().atMost(WITHIN).until(() -> results.size() == 6);
        assertThat(results)
                .allSatisfy(run -> {
                    assertThat(run.fireTime()).isEqualTo(fireTime);
                    assertThat(run.source()).isEqualTo(ExecutionSource.MANUAL);
                    assertThat(run.context().jobParameter()).isEqualTo("by hand");
                })
                .extracting(run -> run.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(results)
                .filteredOn(run -> run.context().instanceId().equals("c"))
                .extracting(run -> run.context().item())
                .containsExactlyInAnyOrderElementsOf(
                        a.coordinator().assignment().itemsOf("c"));
        // Nothing fires by itself in between.
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() ->
                        results.size() == 6 && ledger.reads().overview().fires().equals(List.of(fireTime)));

        Instant second = a.coordinator().trigger(null);

        // A scheduled job would owe the fires of every second between the two once the second one settled.
        await().atMost(WITHIN)
                .until(() -> results(run -> run.fireTime().equals(second)).size() == 6);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> results.size() == 12
                        && ledger.reads().overview().fires().equals(List.of(fireTime, second)));
        assertThat(results).extracting(ItemResult::source).containsOnly(ExecutionSource.MANUAL);
    }

    @Test
    void aJobOnDemandDefinedAtRunTimeOwesNoFireFromItsDefinition() throws Exception {
        JobDefinitions definitions = closeAfterTest(new JobDefinitions(newClient(), NO_LISTENER, FireSchedule.NONE));
        definitions.define(ON_DEMAND.toBuilder().cron("").build(), "handler");
        LedgerParts ledger = LedgerParts.of(newClient(), new JobNodes("onDemand"));

        Instance only = start("only", ON_DEMAND, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        await().atMost(WITHIN).until(() -> settledAt(6, List.of(only)));

        // A job defined at run time owes the fires of its schedule from its definition on: this one has none.
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> results.isEmpty() && fires(ledger).isEmpty());
        assertThat(only.coordinator().configuration().cron()).isEqualTo("-");

        Instant fireTime = only.coordinator().trigger(null);

        // The fires of every second from the definition to the trigger would be due now, were there a schedule.
        await().atMost(WITHIN).until(() -> results.size() == 6);
        await().during(A_FEW_SECONDS)
                .atMost(A_FEW_SECONDS.plus(WITHIN))
                .until(() -> results.size() == 6 && fires(ledger).equals(List.of(fireTime)));
        assertThat(results).extracting(ItemResult::fireTime).containsOnly(fireTime);
        assertThat(results).extracting(ItemResult::source).containsOnly(ExecutionSource.MANUAL);
    }

    private static List<Instant> fires(LedgerParts ledger) {
        try {
            return ledger.reads().overview().fires();
        } catch (Exception noLedgerYet) {
            return List.of();
        }
    }

    private static final JobDefinitions.Listener NO_LISTENER = new JobDefinitions.Listener() {
        @Override
        public void defined(JobDefinitions.Definition definition) {}

        @Override
        public void removed(String jobName) {}
    };
}
