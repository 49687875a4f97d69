package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A follower's fire carries its upstream's fire time, older than when it came due by as long as the upstream ran: the
 * catch-up horizon, which bounds the make-up of the schedule's fires, neither skips nor retires it. As tables.
 */
class FollowerFireRulesTest {

    private static final Instant T0 = Instant.ofEpochSecond(1_000_000);

    /** The upstream's fire time: ten and a half minutes before its completion recorded the follower's fire. */
    private static final Instant UPSTREAM_FIRE = T0;

    /** The follower's catch-up horizon at its audit, just after the completion: ten minutes ago. */
    private static final Instant HORIZON = T0.plusSeconds(40);

    private static final FireOrigin ATTENDED = FireOrigin.after("early", List.of("early"), false, "early");

    private static final FireOrigin UNATTENDED = FireOrigin.after("early", List.of("early"), true, "early");

    /** The follower's fire, nobody's item claimed: its owner was busy, reconnecting or dead at the announcement. */
    private static SortedMap<Instant, Set<Integer>> unclaimed() {
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        claimed.put(UPSTREAM_FIRE, Set.of());
        return claimed;
    }

    private static MakeUpPlan makeUps(Collection<Integer> items, MisfirePolicy policy, FireOrigin origin) {
        return LedgerRules.makeUps(
                unclaimed(), items, policy, Instant.MAX, HORIZON, fire -> origin, slot -> DueRule.Due.YES);
    }

    @Test
    void aFollowersFireOlderThanTheHorizonIsMadeUpUnderEveryPolicyWhenAnInstanceWasThereToRunIt() {
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            MakeUpPlan plan = makeUps(List.of(0, 1), policy, ATTENDED);

            assertThat(plan.run())
                    .as("%s", policy)
                    .containsExactly(new Slot(0, UPSTREAM_FIRE), new Slot(1, UPSTREAM_FIRE));
            assertThat(plan.skipped()).as("%s", policy).isEmpty();
        }
    }

    @Test
    void aFollowersFireOlderThanTheHorizonRecordedWhileNoInstanceWasThereIsMadeUpUnderTheMisfirePolicy() {
        assertThat(makeUps(List.of(0), MisfirePolicy.ONCE, UNATTENDED).run())
                .containsExactly(new Slot(0, UPSTREAM_FIRE));
        assertThat(makeUps(List.of(0), MisfirePolicy.ALL, UNATTENDED).run())
                .containsExactly(new Slot(0, UPSTREAM_FIRE));
        assertThat(makeUps(List.of(0), MisfirePolicy.SKIP, UNATTENDED).skipped())
                .containsExactly(new Slot(0, UPSTREAM_FIRE));
    }

    @Test
    void aScheduledOrManualFireOlderThanTheHorizonIsStillSkippedUnderEveryPolicy() {
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            for (FireOrigin origin : List.of(FireOrigin.SCHEDULED, FireOrigin.manual(null))) {
                MakeUpPlan plan = makeUps(List.of(0), policy, origin);

                assertThat(plan.skipped()).as("%s %s", policy, origin).containsExactly(new Slot(0, UPSTREAM_FIRE));
                assertThat(plan.run()).as("%s %s", policy, origin).isEmpty();
            }
        }
    }

    @Test
    void aFollowersFireOlderThanTheHorizonIsNotRetiredBeforeEveryItemOfItSettled() {
        FireView nobodyClaimed = new FireView(UPSTREAM_FIRE, Map.of(), "", 0, ATTENDED);
        FireView halfDone = new FireView(UPSTREAM_FIRE, Map.of(0, ended(0, ClaimState.DONE)), "", 0, UNATTENDED);
        FireView settled = new FireView(
                UPSTREAM_FIRE, Map.of(0, ended(0, ClaimState.DONE), 1, ended(1, ClaimState.SKIPPED)), "", 0, ATTENDED);
        FireView scheduled = new FireView(UPSTREAM_FIRE, Map.of(), "", 0, FireOrigin.SCHEDULED);
        Instant keepAfter = HORIZON.plusSeconds(540);

        assertThat(LedgerRules.toRetire(List.of(nobodyClaimed), keepAfter, HORIZON))
                .isEmpty();
        assertThat(LedgerRules.toRetire(List.of(halfDone), keepAfter, HORIZON)).isEmpty();
        assertThat(LedgerRules.toRetire(List.of(settled), keepAfter, HORIZON)).containsExactly(UPSTREAM_FIRE);
        assertThat(LedgerRules.toRetire(List.of(scheduled), keepAfter, HORIZON)).containsExactly(UPSTREAM_FIRE);
    }

    private static Claim ended(int item, ClaimState state) {
        return Claim.first(item, UPSTREAM_FIRE, "a", 7, ExecutionSource.UPSTREAM, 1, 2, UPSTREAM_FIRE)
                .with(state, UPSTREAM_FIRE);
    }
}
