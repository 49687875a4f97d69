package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The ledger's rules as tables: no ZooKeeper, no clock. */
class LedgerRulesTest {

    private static final Instant T0 = Instant.ofEpochSecond(1_000_000);

    private static Instant t(int second) {
        return T0.plusSeconds(second);
    }

    private static Claim claim(int item, int second, long session, ClaimState state) {
        return Claim.first(item, t(second), "i" + session, session, ExecutionSource.NORMAL, 1, 4, t(second))
                .with(state, null);
    }

    /** Fires 1..5; item 0 claimed at 1 and 4, item 1 at every fire but 2. */
    private static SortedMap<Instant, Set<Integer>> history() {
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        claimed.put(t(1), Set.of(0, 1));
        claimed.put(t(2), Set.of());
        claimed.put(t(3), Set.of(1));
        claimed.put(t(4), Set.of(0, 1));
        claimed.put(t(5), Set.of(1));
        return claimed;
    }

    /** Make-ups of slots all due, the fires in {@code manual} an operator's. */
    private static MakeUpPlan makeUps(
            SortedMap<Instant, Set<Integer>> claimed,
            List<Integer> items,
            MisfirePolicy policy,
            Instant lateBefore,
            Instant horizon,
            Set<Instant> manual) {
        return LedgerRules.makeUps(
                claimed,
                items,
                policy,
                lateBefore,
                horizon,
                fireTime -> manual.contains(fireTime) ? FireOrigin.manual(null) : FireOrigin.SCHEDULED,
                slot -> DueRule.Due.YES);
    }

    @Test
    void underOnceEachRunOfConsecutiveMissedFiresRunsOnceAsItsLatest() {
        MakeUpPlan plan = makeUps(history(), List.of(0, 1), MisfirePolicy.ONCE, t(6), T0, Set.of());

        assertThat(plan.run()).containsExactly(new Slot(1, t(2)), new Slot(0, t(3)), new Slot(0, t(5)));
        assertThat(plan.coalesced()).containsExactly(Map.entry(new Slot(0, t(2)), new Slot(0, t(3))));
        assertThat(plan.skipped()).isEmpty();
    }

    @Test
    void underAllEveryMissedFireRunsWithItsOwnFireTime() {
        MakeUpPlan plan = makeUps(history(), List.of(0), MisfirePolicy.ALL, t(6), T0, Set.of());

        assertThat(plan.run()).containsExactly(new Slot(0, t(2)), new Slot(0, t(3)), new Slot(0, t(5)));
        assertThat(plan.coalesced()).isEmpty();
    }

    @Test
    void underSkipMissedFiresAreRecordedAsSkipped() {
        MakeUpPlan plan = makeUps(history(), List.of(0), MisfirePolicy.SKIP, t(6), T0, Set.of());

        assertThat(plan.run()).isEmpty();
        assertThat(plan.skipped()).containsExactly(new Slot(0, t(2)), new Slot(0, t(3)), new Slot(0, t(5)));
    }

    @Test
    void aFireThatIsNotLateYetIsLeftToItsOwner() {
        MakeUpPlan plan = makeUps(history(), List.of(0), MisfirePolicy.ALL, t(5), T0, Set.of());

        assertThat(plan.run()).containsExactly(new Slot(0, t(2)), new Slot(0, t(3)));
    }

    @Test
    void missedFiresBeforeTheCatchUpHorizonAreSkippedUnderEveryPolicy() {
        MakeUpPlan plan = makeUps(history(), List.of(0), MisfirePolicy.ALL, t(6), t(3), Set.of());

        assertThat(plan.skipped()).containsExactly(new Slot(0, t(2)));
        assertThat(plan.run()).containsExactly(new Slot(0, t(3)), new Slot(0, t(5)));
    }

    @Test
    void aMissedManualFireRunsAsItsOwnFireUnderEveryPolicyAndSplitsTheMissedFiresAroundIt() {
        // Item 0 missed 2 and 3 (manual) and 5; item 1 missed 2 only.
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            MakeUpPlan plan = makeUps(history(), List.of(0, 1), policy, t(6), T0, Set.of(t(3)));

            assertThat(plan.run()).as("%s", policy).contains(new Slot(0, t(3)));
            assertThat(plan.coalesced()).as("%s", policy).doesNotContainKey(new Slot(0, t(3)));
            assertThat(plan.coalesced().values()).as("%s", policy).doesNotContain(new Slot(0, t(3)));
            assertThat(plan.skipped()).as("%s", policy).doesNotContain(new Slot(0, t(3)));
        }
        MakeUpPlan once = makeUps(history(), List.of(0, 1), MisfirePolicy.ONCE, t(6), T0, Set.of(t(3)));
        assertThat(once.run())
                .containsExactly(new Slot(0, t(2)), new Slot(1, t(2)), new Slot(0, t(3)), new Slot(0, t(5)));
        assertThat(once.coalesced()).isEmpty();
        MakeUpPlan skip = makeUps(history(), List.of(0), MisfirePolicy.SKIP, t(6), T0, Set.of(t(3)));
        assertThat(skip.run()).containsExactly(new Slot(0, t(3)));
        assertThat(skip.skipped()).containsExactly(new Slot(0, t(2)), new Slot(0, t(5)));
    }

    @Test
    void aMissedManualFireBeforeTheCatchUpHorizonIsSkippedAsAnyOther() {
        MakeUpPlan plan = makeUps(history(), List.of(0), MisfirePolicy.ALL, t(6), t(3), Set.of(t(2)));

        assertThat(plan.skipped()).containsExactly(new Slot(0, t(2)));
    }

    @Test
    void anOpenClaimIsAnOrphanWhenItsSessionIsGoneOrItWasReleased() {
        assertThat(TakeOverRule.isOrphan(claim(0, 1, 7, ClaimState.RUNNING), Set.of(8L)))
                .isTrue();
        assertThat(TakeOverRule.isOrphan(claim(0, 1, 7, ClaimState.RUNNING), Set.of(7L)))
                .isFalse();
        assertThat(TakeOverRule.isOrphan(claim(0, 1, 7, ClaimState.RELEASED), Set.of(7L)))
                .isTrue();
        assertThat(TakeOverRule.isOrphan(claim(0, 1, 7, ClaimState.DONE), Set.of()))
                .isFalse();
        assertThat(TakeOverRule.isOrphan(claim(0, 1, 7, ClaimState.FAILED), Set.of()))
                .isFalse();
    }

    @Test
    void onlyTheItemsOwnerTakesAnOrphanOverOldestFireFirst() {
        List<Claim> claims = List.of(
                claim(2, 5, 7, ClaimState.RUNNING),
                claim(1, 3, 7, ClaimState.RUNNING),
                claim(2, 3, 7, ClaimState.RUNNING),
                claim(3, 3, 9, ClaimState.RUNNING));

        assertThat(TakeOverRule.toTakeOver(claims, Map.of("i9", 9L), Set.of(2, 3), true))
                .extracting(claim -> new Slot(claim.item(), claim.fireTime()))
                .containsExactly(new Slot(2, t(3)), new Slot(2, t(5)));
    }

    @Test
    void anOrphanWhoseInstanceIsRegisteredAgainIsLeftToItUnlessItReleasedIt() {
        List<Claim> claims = List.of(claim(1, 3, 7, ClaimState.RUNNING), claim(2, 3, 7, ClaimState.RELEASED));
        // Instance i7 came back under session 8: it may owe item 1's end, and it released item 2.
        Map<String, Long> live = Map.of("i7", 8L);

        assertThat(TakeOverRule.toTakeOver(claims, live, Set.of(1, 2), true))
                .extracting(Claim::item)
                .containsExactly(2);
    }

    @Test
    void anObserverThatLostItsOwnSessionLatelyTakesOverOnlyReleasedClaimsNotThoseOfAbsentOwners() {
        // After a frozen server every session expired at once: i7 may be reconnecting still, owing item 1's end.
        List<Claim> claims = List.of(claim(1, 3, 7, ClaimState.RUNNING), claim(2, 3, 7, ClaimState.RELEASED));

        assertThat(TakeOverRule.toTakeOver(claims, Map.of("i9", 9L), Set.of(1, 2), false))
                .extracting(Claim::item)
                .containsExactly(2);
        assertThat(TakeOverRule.toTakeOver(claims, Map.of("i9", 9L), Set.of(1, 2), true))
                .extracting(Claim::item)
                .containsExactly(1, 2);
    }

    @Test
    void anOwnedItemThatAnotherLiveSessionStillRunsForAnyFireIsRunningElsewhere() {
        List<Claim> claims = List.of(
                claim(0, 1, 7, ClaimState.RUNNING),
                claim(1, 2, 8, ClaimState.RUNNING),
                claim(2, 1, 7, ClaimState.DONE),
                claim(3, 1, 9, ClaimState.RUNNING),
                claim(4, 1, 7, ClaimState.RUNNING));

        // Session 8 is this one, 9 is dead, item 4 is not owned here.
        assertThat(TakeOverRule.runsElsewhere(claims, Set.of(7L, 8L), 8, Set.of(0, 1, 2, 3))
                        .keySet())
                .containsExactly(0);
    }

    @Test
    void aRunningClaimOfAnEarlierSessionOfThisInstanceIsReleasedUnlessThisProcessRunsItOrOwesItsEnd() {
        List<Claim> claims = List.of(
                claim(0, 1, 7, ClaimState.RUNNING),
                claim(1, 1, 7, ClaimState.RUNNING),
                claim(2, 1, 7, ClaimState.DONE),
                claim(3, 1, 8, ClaimState.RUNNING));

        assertThat(TakeOverRule.previousSessionOwn(claims, "i7", 9, Set.of(new Slot(1, t(1)))))
                .extracting(Claim::item)
                .containsExactly(0);
    }

    @Test
    void aRunningClaimOfThisSessionThatItDoesNotRunIsStranded() {
        List<Claim> claims = List.of(claim(0, 1, 7, ClaimState.RUNNING), claim(1, 1, 7, ClaimState.RUNNING));

        assertThat(TakeOverRule.strandedOwn(claims, 7, Set.of(new Slot(0, t(1)))))
                .extracting(Claim::item)
                .containsExactly(1);
    }

    @Test
    void aFireIsSettledWhenEveryItemHasAClaimThatIsNoLongerOpen() {
        FireView settled = new FireView(
                t(1),
                Map.of(
                        0, claim(0, 1, 7, ClaimState.DONE),
                        1, claim(1, 1, 7, ClaimState.FAILED),
                        2, claim(2, 1, 7, ClaimState.COALESCED),
                        3, claim(3, 1, 7, ClaimState.SKIPPED)));
        FireView missing = new FireView(t(2), Map.of(0, claim(0, 2, 7, ClaimState.DONE)));
        FireView open = new FireView(
                t(3),
                Map.of(
                        0, claim(0, 3, 7, ClaimState.DONE),
                        1, claim(1, 3, 7, ClaimState.RUNNING),
                        2, claim(2, 3, 7, ClaimState.DONE),
                        3, claim(3, 3, 7, ClaimState.DONE)));

        assertThat(settled.isSettled()).isTrue();
        assertThat(missing.isSettled()).isFalse();
        assertThat(open.isSettled()).isFalse();
        assertThat(LedgerRules.settledThrough(List.of(open, settled, missing), T0))
                .isEqualTo(t(1));
        assertThat(LedgerRules.toRetire(List.of(settled, missing, open), t(10), t(3)))
                .containsExactly(t(1), t(2));
    }

    @Test
    void claimsAheadAreMadeForTheOwnedItemsThatCouldStartNow() {
        assertThat(ClaimsAheadRule.toClaimAhead(List.of(3, 0, 1, 2), Set.of(1, 7), false))
                .containsExactly(0, 2, 3);
    }

    @Test
    void noClaimIsMadeAheadForAFireItsTriggerAlreadyTookUp() {
        assertThat(ClaimsAheadRule.toClaimAhead(List.of(0, 1), Set.of(), true)).isEmpty();
    }

    private static ClaimsAheadRule.AheadFate atFire(
            long claimSession,
            boolean connected,
            boolean jobDisabled,
            Set<Integer> owned,
            Set<Integer> disabledItems,
            boolean startable,
            boolean due) {
        Claim ahead = claim(2, 9, claimSession, ClaimState.RESERVED);
        return ClaimsAheadRule.atFire(
                ahead,
                5,
                connected,
                jobDisabled,
                owned,
                disabledItems,
                startable,
                due ? DueRule.Due.YES : DueRule.Due.NO);
    }

    @Test
    void aClaimMadeAheadRunsAtItsFireWithoutAskingWhileNothingChanged() {
        assertThat(atFire(5, true, false, Set.of(2), Set.of(), true, true)).isEqualTo(ClaimsAheadRule.AheadFate.RUN);
    }

    @Test
    void aClaimMadeAheadForAnItemThatMovedAwayIsReleasedToItsNewOwner() {
        assertThat(atFire(5, true, false, Set.of(0, 1), Set.of(), true, true))
                .isEqualTo(ClaimsAheadRule.AheadFate.RELEASE);
    }

    @Test
    void aClaimMadeAheadWhoseFireIsNotKnownYetToBeDueIsLeftToTheAuditWhateverElseHolds() {
        Claim ahead = claim(2, 9, 5, ClaimState.RESERVED);

        assertThat(ClaimsAheadRule.atFire(ahead, 5, true, false, Set.of(2), Set.of(), true, DueRule.Due.NOT_KNOWN_YET))
                .isEqualTo(ClaimsAheadRule.AheadFate.AUDIT);
        assertThat(ClaimsAheadRule.atFire(ahead, 5, true, true, Set.of(), Set.of(2), false, DueRule.Due.NOT_KNOWN_YET))
                .isEqualTo(ClaimsAheadRule.AheadFate.AUDIT);
    }

    @Test
    void aClaimMadeAheadForAFireThatWasNotDueIsRecordedAsSkipped() {
        assertThat(atFire(5, true, false, Set.of(2), Set.of(2), true, false)).isEqualTo(ClaimsAheadRule.AheadFate.SKIP);
        assertThat(atFire(5, true, true, Set.of(2), Set.of(), true, false)).isEqualTo(ClaimsAheadRule.AheadFate.SKIP);
        assertThat(atFire(5, true, false, Set.of(2), Set.of(), true, false)).isEqualTo(ClaimsAheadRule.AheadFate.SKIP);
    }

    @Test
    void aClaimMadeAheadForADueFireWhoseItemOrJobWasDisabledSinceIsHandedOnForItsOwnerToRunOnceEnabled() {
        assertThat(atFire(5, true, false, Set.of(2), Set.of(2), true, true))
                .isEqualTo(ClaimsAheadRule.AheadFate.RELEASE);
        assertThat(atFire(5, true, true, Set.of(2), Set.of(), true, true)).isEqualTo(ClaimsAheadRule.AheadFate.RELEASE);
    }

    @Test
    void aClaimMadeAheadIsLeftToTheAuditWhenCutOffBusyOrOfAnEarlierSession() {
        assertThat(atFire(5, false, false, Set.of(2), Set.of(), true, true)).isEqualTo(ClaimsAheadRule.AheadFate.AUDIT);
        assertThat(atFire(5, true, false, Set.of(2), Set.of(), false, true)).isEqualTo(ClaimsAheadRule.AheadFate.AUDIT);
        assertThat(atFire(4, true, false, Set.of(2), Set.of(), true, true)).isEqualTo(ClaimsAheadRule.AheadFate.AUDIT);
    }
}
