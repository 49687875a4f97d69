package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The due rule on the histories of the issue: a job disabled for a while, a faster cron, a lower count. */
class DueRuleTest {

    private static final Instant T0 = DueRulePropertiesTest.T0;

    @Test
    void aJobDisabledForSeventySecondsHasNoScheduledFireInThatWindow() {
        DueRule rule = rule(
                entry(0, false, true, 5, 4, Set.of()),
                entry(12, false, false, 5, 4, Set.of()),
                entry(82, false, true, 5, 4, Set.of()));

        assertThat(rule.scheduled(t(0), t(100), 100)).containsExactly(t(5), t(10), t(85), t(90), t(95));
        assertThat(rule.isScheduled(t(15))).isFalse();
        assertThat(rule.isDue(t(15), 0)).isFalse();
        assertThat(rule.isDue(t(10), 0)).isTrue();
    }

    @Test
    void aFasterCronCountsFromItsChangeAndTheSlowerOneUntilIt() {
        DueRule rule = rule(entry(0, false, true, 5, 4, Set.of()), entry(12, false, true, 1, 4, Set.of()));

        assertThat(rule.scheduled(t(0), t(16), 100)).containsExactly(t(5), t(10), t(12), t(13), t(14), t(15));
        assertThat(rule.isScheduled(t(11))).isFalse();
        assertThat(rule.isScheduled(t(13))).isTrue();
    }

    @Test
    void aLowerCountLeavesTheItemsBeyondItUndueFromTheFiresBeforeItOn() {
        DueRule rule = rule(entry(0, false, true, 1, 8, Set.of()), entry(10, false, true, 1, 4, Set.of()));

        assertThat(rule.dueCount(t(5))).isEqualTo(4);
        assertThat(rule.isDue(t(5), 3)).isTrue();
        assertThat(rule.isDue(t(5), 4)).isFalse();
        assertThat(rule.isDue(t(12), 7)).isFalse();
    }

    @Test
    void aDisabledItemIsNotDueWhileItWasDisabledAndIsAgainAfter() {
        DueRule rule = rule(
                entry(0, false, true, 1, 4, Set.of()),
                entry(10, false, true, 1, 4, Set.of(2)),
                entry(20, false, true, 1, 4, Set.of()));

        assertThat(rule.isDue(t(9), 2)).isTrue();
        assertThat(rule.isDue(t(10), 2)).isFalse();
        assertThat(rule.isDue(t(19), 2)).isFalse();
        assertThat(rule.isDue(t(19), 1)).isTrue();
        assertThat(rule.isDue(t(20), 2)).isTrue();
    }

    @Test
    void nothingBeforeADefinitionIsDueWhileTheFirstEntryOfAJobDeclaredInCodeHoldsBackInTime() {
        DueRule defined = rule(entry(10, true, true, 1, 4, Set.of()));
        DueRule declared = rule(entry(10, false, true, 1, 4, Set.of()));

        assertThat(defined.start()).isEqualTo(t(10));
        assertThat(defined.isDue(t(9), 0)).isFalse();
        assertThat(defined.scheduled(t(0), t(12), 10)).containsExactly(t(10), t(11));
        assertThat(declared.start()).isEqualTo(Instant.EPOCH);
        assertThat(declared.isDue(t(9), 0)).isTrue();
        assertThat(declared.scheduled(t(0), t(12), 20)).hasSize(11);
    }

    @Test
    void underOnceTheMissedFiresOnEitherSideOfADisabledWindowRunOnceAndTheWindowIsRecordedNotDue() {
        DueRule rule = rule(
                entry(0, false, true, 1, 1, Set.of()),
                entry(3, false, false, 1, 1, Set.of()),
                entry(6, false, true, 1, 1, Set.of()));
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        claimed.put(t(1), Set.of(0));
        for (int second = 2; second <= 7; second++) {
            claimed.put(t(second), Set.of());
        }

        MakeUpPlan plan = LedgerRules.makeUps(
                claimed, List.of(0), MisfirePolicy.ONCE, t(8), T0, fire -> FireOrigin.SCHEDULED, rule::isDue);

        assertThat(plan.run()).containsExactly(new Slot(0, t(7)));
        assertThat(plan.coalesced()).containsOnlyKeys(new Slot(0, t(2)), new Slot(0, t(6)));
        assertThat(plan.notDue()).containsExactly(new Slot(0, t(3)), new Slot(0, t(4)), new Slot(0, t(5)));
        assertThat(plan.skipped()).isEmpty();
    }

    @Test
    void aJobOnDemandHasNoScheduledFireWhileItsItemsOfATriggeredFireAreDue() {
        // Asked, the schedule would answer every second, whatever the cron: the rule must not ask for "-".
        DueRule rule =
                new DueRule(new ScheduleHistory(List.of(onDemand(0, true))), (entry, after) -> after.plusSeconds(1));

        assertThat(rule.scheduled(t(0), t(100), 100)).isEmpty();
        assertThat(rule.isScheduled(t(5))).isFalse();
        assertThat(rule.isDue(t(5), 0)).as("an item of a triggered fire").isTrue();
    }

    @Test
    void aCronGivenToAJobOnDemandSchedulesFromItsChangeAndNothingOnceTheJobIsOnDemandAgain() {
        DueRule rule = rule(onDemand(0, false), entry(10, false, true, 5, 4, Set.of()), onDemand(22, false));

        assertThat(rule.scheduled(t(0), t(100), 100)).containsExactly(t(10), t(15), t(20));
        assertThat(rule.isScheduled(t(5))).isFalse();
        assertThat(rule.isScheduled(t(15))).isTrue();
        assertThat(rule.isScheduled(t(25))).isFalse();
    }

    @Test
    void aHistoryKeepsTheEntryInForceAtTheHorizonAndDropsTheOnesBefore() {
        ScheduleHistory history = new ScheduleHistory(List.of(entry(0, true, true, 1, 4, Set.of())))
                .with(entry(10, false, false, 1, 4, Set.of()), t(0))
                .with(entry(20, false, true, 1, 4, Set.of()), t(0))
                .with(entry(30, false, true, 2, 4, Set.of()), t(25));

        assertThat(history.entries()).extracting(Entry::from).containsExactly(t(20), t(30));
        assertThat(history.with(entry(40, false, true, 2, 4, Set.of()), t(25))).isSameAs(history);
    }

    private static DueRule rule(Entry... entries) {
        return new DueRule(new ScheduleHistory(List.of(entries)), DueRulePropertiesTest.EVERY_K_SECONDS);
    }

    private static Entry entry(int second, boolean defined, boolean enabled, int period, int count, Set<Integer> off) {
        return new Entry(
                t(second),
                defined,
                enabled,
                (period == 1 ? "*" : "*/" + period) + " * * * * *",
                ZoneOffset.UTC,
                count,
                new TreeSet<>(off));
    }

    private static Entry onDemand(int second, boolean defined) {
        return new Entry(t(second), defined, true, "-", ZoneOffset.UTC, 4, new TreeSet<>());
    }

    private static Instant t(int second) {
        return T0.plusSeconds(second);
    }
}
