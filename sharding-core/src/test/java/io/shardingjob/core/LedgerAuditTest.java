package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.ledger.AssignmentGuard;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.FireNodes;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The audit against the fires of its own instance: it finds work left undone, and never repeats work being done. */
class LedgerAuditTest extends JobInstanceTestSupport {

    private static final JobConfiguration FOUR_ITEMS = JobConfiguration.builder("audited")
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .failover(true)
            .build();

    private static final JobConfiguration SKIPPING = JobConfiguration.builder("audited")
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .misfirePolicy(MisfirePolicy.SKIP)
            .build();

    @Test
    void anAuditRunningWhileFiresClaimAndEndTheirItemsNeverRunsAnItemOfAFireTwice() throws Exception {
        // Every fire's own run: a fire that meets its items still busy with an earlier one is made up by the audit once
        // they end, rather than coalesced (the default), so every slot runs however the fires and the runs interleave.
        JobConfiguration everyFire = JobConfiguration.builder("audited")
                .cron("* * * * * *")
                .shardingTotalCount(4)
                .failover(true)
                .misfirePolicy(MisfirePolicy.ALL)
                .build();
        // The first fire's runs last until half the fires were told: those meet their items busy, the rest race.
        CountDownLatch halfTold = new CountDownLatch(1);
        Instant first = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
        ItemExecutor job = context -> {
            if (context.fireTime().equals(first)) {
                halfTold.await(10, TimeUnit.SECONDS);
            }
        };
        Instance only = start("only", everyFire, job, builder -> builder.reconcileInterval(Duration.ofMillis(10)));
        await().until(() -> settledAt(4, List.of(only)));

        CompletableFuture<FireReport> firstFire = only.coordinator().fireAsync(ExecutionSource.NORMAL, first);
        for (int fire = 1; fire < 100; fire++) {
            only.coordinator().fire(ExecutionSource.NORMAL, first.plusMillis(10L * fire));
            if (fire == 50) {
                halfTold.countDown();
            }
        }
        firstFire.get(10, TimeUnit.SECONDS);

        // Anything an audit started by mistake would show up as a second run of a slot.
        await().until(() -> runsPerSlot().size() == 400
                && only.coordinator().ledger().openClaims().isEmpty());
        assertThat(runsPerSlot().values()).containsOnly(1L);
        assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                .as("fires that met their items still running, made up")
                .isNotEmpty();
    }

    private Map<String, Long> runsPerSlot() {
        return results.stream()
                .collect(Collectors.groupingBy(
                        (ItemResult result) -> result.context().item() + "@" + result.fireTime(),
                        Collectors.counting()));
    }

    @Test
    void aServiceWhoseEveryInstanceWasDownMakesUpItsScheduledFiresOnceWhenItComesBack() throws Exception {
        Instant last = fireOnceAndStop(FOUR_ITEMS);

        // Back, and firing again, after four fires which nobody claimed and no instance saw.
        Instance after = start("b", FOUR_ITEMS, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        Instant resumed = last.plusSeconds(5);
        after.coordinator().fire(ExecutionSource.NORMAL, resumed);

        // One late run per item, as the latest missed fire; the ones before it are coalesced into it. Which fire that
        // is depends on whether the fire at `resumed`, late itself (two seconds and more), reached this instance before
        // its first audit looked: then the fire before it, and the trigger's fire runs as its own; else that audit
        // makes the trigger's fire up too, and the trigger finds its items claimed. Either way each runs once.
        await().untilAsserted(() -> assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                .extracting(result -> result.context().item())
                .containsExactlyInAnyOrder(0, 1, 2, 3));
        assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                .extracting(ItemResult::fireTime)
                .containsAnyOf(resumed.minusSeconds(1), resumed)
                .hasSameElementsAs(List.of(results(result -> result.source() == ExecutionSource.MISFIRE)
                        .get(0)
                        .fireTime()));
        assertThat(results(result -> result.fireTime().equals(last))).hasSize(4);
        await().untilAsserted(
                        () -> assertThat(results(result -> result.fireTime().equals(resumed)))
                                .extracting(result -> result.context().item())
                                .containsExactlyInAnyOrder(0, 1, 2, 3));
        assertThat(results(result -> true))
                .as("no item of any fire ran twice")
                .extracting(result -> result.context().item() + "@" + result.fireTime())
                .doesNotHaveDuplicates();
    }

    @Test
    void underTheSkipPolicyAServiceThatWasDownWaitsForItsNextFire() throws Exception {
        Instant last = fireOnceAndStop(SKIPPING);

        Instance after = start("b", SKIPPING, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        after.coordinator().fire(ExecutionSource.NORMAL, last.plusSeconds(5));

        // The audit records each missed fire's items as skipped, and nothing runs late.
        LedgerParts ledger = LedgerParts.of(after.client(), new JobNodes("audited"));
        Instant missed = last.plusSeconds(2);
        await().untilAsserted(() -> assertThat(
                        ledger.reads().read(List.of(missed)).get(0).claims().values())
                .extracting(Claim::state)
                .containsExactly(ClaimState.SKIPPED, ClaimState.SKIPPED, ClaimState.SKIPPED, ClaimState.SKIPPED));
        assertThat(results(result -> result.source() == ExecutionSource.MISFIRE))
                .isEmpty();
    }

    @Test
    void aFireNodeCreatedAheadForATimeTheScheduleDoesNotHaveIsNeverMadeUp() throws Exception {
        Instant last = fireOnceAndStop(SKIPPING);
        // Created ahead under a schedule that had a fire at half past: the schedule now fires on whole seconds only.
        Instant neverCame = last.plusMillis(2_500);
        LedgerParts ledger = LedgerParts.of(newClient(), new JobNodes("audited"));
        ledger.claims()
                .commitAsync(List.of(), Instant.EPOCH, List.of(), new FireNodes(false, neverCame), AssignmentGuard.NONE)
                .join();

        Instance after = start("b", SKIPPING, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        after.coordinator().fire(ExecutionSource.NORMAL, last.plusSeconds(5));

        // The audit settles the missed fires on either side of it, and leaves it alone.
        await().untilAsserted(() -> assertThat(ledger.reads()
                        .read(List.of(last.plusSeconds(3)))
                        .get(0)
                        .claims()
                        .values())
                .extracting(Claim::state)
                .containsOnly(ClaimState.SKIPPED)
                .hasSize(4));
        assertThat(ledger.reads().read(List.of(neverCame)).get(0).claims()).isEmpty();
    }

    /** The only instance of a job fires once, eight seconds ago, and stops: every instance is down since. */
    private Instant fireOnceAndStop(JobConfiguration job) throws Exception {
        Instant last = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(8);
        Instance before = start("a", job, context -> {}, builder -> builder.schedule(EVERY_SECOND));
        await().until(() -> settledAt(4, List.of(before)));
        before.coordinator().fire(ExecutionSource.NORMAL, last);
        before.coordinator().close();
        return last;
    }
}
