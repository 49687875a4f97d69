package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's upkeep of a follower's ledger against a real ZooKeeper server: a fire its upstream recorded carries the
 * upstream's fire time, which may be older than the catch-up horizon before anyone could claim its items.
 */
class FollowerFireRetirementTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("export");

    private static final Duration RETENTION = Duration.ofMinutes(1);

    private static final Duration HORIZON = Duration.ofMinutes(10);

    private final Instant fireTime =
            Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(30);

    private LedgerParts ledger;

    @BeforeEach
    void createTheLedger() throws Exception {
        newClient().create().creatingParentsIfNeeded().forPath(NODES.ledger());
        ledger = LedgerParts.of(newClient(), NODES);
    }

    @Test
    void retiresNoFollowerFireThatNobodyClaimedWhateverItsAgeButOnceEveryItemOfItSettled() throws Exception {
        // The upstream's fire completed and recorded this one; its item's owner was away: nobody claimed it.
        ledger.claims().recordDueAsync(fireTime).join();
        ledger.chains()
                .writeNoteAsync(fireTime, "", FireOrigin.after("settle", List.of("settle"), false, "settle"), 0)
                .join();
        Instant pastTheHorizon = fireTime.plus(HORIZON).plus(RETENTION).plusSeconds(60);

        keeper().pass(pastTheHorizon, ledger.proof().sessionId()).join();

        assertThat(ledger.reads().fires())
                .as("the follower's fire, still to be made up")
                .containsExactly(fireTime);

        // Once its item ran, the fire is settled and retired as any other.
        Claim run = ledger.claims()
                .claimAsync(
                        fireTime,
                        List.of(Claim.first(
                                0,
                                fireTime,
                                "a",
                                ledger.proof().sessionId(),
                                ExecutionSource.UPSTREAM,
                                1,
                                1,
                                fireTime)))
                .join()
                .won()
                .get(0);
        ledger.claims()
                .commitAsync(List.of(run.with(ClaimState.DONE, pastTheHorizon)), Instant.EPOCH, List.of())
                .join()
                .written();

        keeper().pass(
                        pastTheHorizon.plus(RETENTION.multipliedBy(2)),
                        ledger.proof().sessionId())
                .join();

        assertThat(ledger.reads().fires()).isEmpty();
    }

    private LedgerKeeper keeper() {
        JobConfiguration job = JobConfiguration.builder("export")
                .cron("-")
                .shardingTotalCount(1)
                .after("settle")
                .build();
        return new LedgerKeeper(
                new LedgerKeeper.Ledger(ledger.reads(), ledger.sessions(), ledger.keeper(), ledger.awaited()),
                null,
                new LedgerKeeper.Horizons(RETENTION, HORIZON),
                new DueFires(
                        ledger.claims(), FireSchedule.NONE, () -> job, Set::of, () -> ScheduleHistory.EMPTY, List::of),
                Runnable::run,
                new RecordedEnds(100),
                fire -> false);
    }
}
