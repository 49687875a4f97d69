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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The due rule on the histories of the issue: a job disabled for a while, a faster cron, a lower count. */
class DueRuleTest {

    private static final Instant T0 = DueRulePropertiesTest.T0;

    private static final FireOrigin SCHEDULED = FireOrigin.SCHEDULED;

    private static final FireOrigin TRIGGERED = FireOrigin.manual(null);

    @Test
    void aJobDisabledForSeventySecondsHasNoScheduledFireInThatWindow() {
        DueRule rule = rule(
                entry(0, false, true, 5, 4, Set.of()),
                entry(12, false, false, 5, 4, Set.of()),
                entry(82, false, true, 5, 4, Set.of()));

        assertThat(rule.scheduled(t(0), t(100), 100)).containsExactly(t(5), t(10), t(85), t(90), t(95));
        assertThat(rule.isScheduled(t(15))).isFalse();
        assertThat(rule.isDue(t(15), 0, SCHEDULED)).isFalse();
        assertThat(rule.isDue(t(10), 0, SCHEDULED)).isTrue();
    }

    /**
     * Recorded: every five seconds, four items, all enabled. Seen: what the instance's configuration and disabled items
     * say now. A "not due" is final only when the history records what is seen; a due fire is due either way.
     */
    @ParameterizedTest(name = "seen every {0}s enabled={1} count={2} off={3}: item {5} at {4}s -> {6}")
    @CsvSource({
        "5, true,  4, -1, 13, 0, NO",
        "5, true,  4, -1, 10, 0, YES",
        "5, true,  4, -1, 10, 5, NO",
        "1, true,  4, -1, 13, 0, NOT_KNOWN_YET",
        "1, true,  4, -1, 10, 0, YES",
        "5, false, 4, -1, 13, 0, NOT_KNOWN_YET",
        "5, true,  8, -1, 10, 5, NOT_KNOWN_YET",
        "5, true,  4,  2, 13, 0, NOT_KNOWN_YET",
        "5, true,  4,  2, 10, 2, YES",
    })
    void notDueIsFinalOnlyWhenTheHistoryRecordsTheStateTheInstanceSees(
            int seenPeriod,
            boolean seenEnabled,
            int seenCount,
            int seenOff,
            int second,
            int item,
            DueRule.Due expected) {
        ScheduleHistory recorded = new ScheduleHistory(List.of(entry(0, false, true, 5, 4, Set.of())));
        Entry seen = entry(0, false, seenEnabled, seenPeriod, seenCount, seenOff < 0 ? Set.of() : Set.of(seenOff));
        DueRule rule = new DueRule(recorded, DueRulePropertiesTest.EVERY_K_SECONDS, seen);

        assertThat(rule.judge(new Slot(item, t(second)), SCHEDULED)).isEqualTo(expected);
    }

    @Test
    void aSlotNotKnownYetToBeDueIsLeftOutOfTheMakeUpPlanForALaterAuditToDecide() {
        ScheduleHistory recorded = new ScheduleHistory(List.of(entry(0, false, true, 5, 1, Set.of())));
        DueRule rule =
                new DueRule(recorded, DueRulePropertiesTest.EVERY_K_SECONDS, entry(0, false, true, 1, 1, Set.of()));
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        claimed.put(t(5), Set.of());
        claimed.put(t(6), Set.of());
        claimed.put(t(10), Set.of());

        MakeUpPlan plan = LedgerRules.makeUps(
                claimed,
                List.of(0),
                MisfirePolicy.ONCE,
                t(11),
                T0,
                fire -> SCHEDULED,
                slot -> rule.judge(slot, SCHEDULED));

        assertThat(plan.run()).containsExactly(new Slot(0, t(10)));
        assertThat(plan.coalesced()).containsOnlyKeys(new Slot(0, t(5)));
        assertThat(plan.notDue()).isEmpty();
        assertThat(plan.skipped()).isEmpty();
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
        assertThat(rule.isDue(t(5), 3, SCHEDULED)).isTrue();
        assertThat(rule.isDue(t(5), 4, SCHEDULED)).isFalse();
        assertThat(rule.isDue(t(12), 7, SCHEDULED)).isFalse();
    }

    @Test
    void aDisabledItemIsNotDueWhileItWasDisabledAndIsAgainAfter() {
        DueRule rule = rule(
                entry(0, false, true, 1, 4, Set.of()),
                entry(10, false, true, 1, 4, Set.of(2)),
                entry(20, false, true, 1, 4, Set.of()));

        assertThat(rule.isDue(t(9), 2, SCHEDULED)).isTrue();
        assertThat(rule.isDue(t(10), 2, SCHEDULED)).isFalse();
        assertThat(rule.isDue(t(19), 2, SCHEDULED)).isFalse();
        assertThat(rule.isDue(t(19), 1, SCHEDULED)).isTrue();
        assertThat(rule.isDue(t(20), 2, SCHEDULED)).isTrue();
    }

    @Test
    void nothingBeforeADefinitionIsDueWhileTheFirstEntryOfAJobDeclaredInCodeHoldsBackInTime() {
        DueRule defined = rule(entry(10, true, true, 1, 4, Set.of()));
        DueRule declared = rule(entry(10, false, true, 1, 4, Set.of()));

        assertThat(defined.start()).isEqualTo(t(10));
        assertThat(defined.isDue(t(9), 0, SCHEDULED)).isFalse();
        assertThat(defined.scheduled(t(0), t(12), 10)).containsExactly(t(10), t(11));
        assertThat(declared.start()).isEqualTo(Instant.EPOCH);
        assertThat(declared.isDue(t(9), 0, SCHEDULED)).isTrue();
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
                claimed,
                List.of(0),
                MisfirePolicy.ONCE,
                t(8),
                T0,
                fire -> SCHEDULED,
                slot -> rule.judge(slot, SCHEDULED));

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
        assertThat(rule.isDue(t(5), 0, TRIGGERED))
                .as("an item of a triggered fire")
                .isTrue();
        assertThat(rule.isDue(t(5), 0, SCHEDULED))
                .as("an item of a fire of no schedule")
                .isFalse();
    }

    @Test
    void aCronGivenToAJobOnDemandSchedulesFromItsChangeAndNothingOnceTheJobIsOnDemandAgain() {
        DueRule rule = rule(onDemand(0, false), entry(10, false, true, 5, 4, Set.of()), onDemand(22, false));

        assertThat(rule.scheduled(t(0), t(100), 100)).containsExactly(t(10), t(15), t(20));
        assertThat(rule.isScheduled(t(5))).isFalse();
        assertThat(rule.isScheduled(t(15))).isTrue();
        assertThat(rule.isScheduled(t(25))).isFalse();
    }

    /** A fire time, and whether an item of a fire of the schedule then was due. */
    private record Fire(int second, boolean due) {}

    @Test
    void aFireOfTheScheduleIsDueOnlyOnTheCronInForceAtItsTime() {
        // Every five seconds until 12, every three from then on.
        DueRule rule = rule(entry(0, false, true, 5, 4, Set.of()), entry(12, false, true, 3, 4, Set.of()));

        for (Fire fire : List.of(
                new Fire(10, true),
                new Fire(11, false),
                new Fire(15, true),
                new Fire(20, false),
                new Fire(21, true),
                new Fire(25, false))) {
            assertThat(rule.isDue(t(fire.second()), 0, SCHEDULED))
                    .as("item 0 of a fire of the schedule at %d s", fire.second())
                    .isEqualTo(fire.due());
            assertThat(rule.isDue(t(fire.second()), 0, TRIGGERED))
                    .as("item 0 of an operator's fire at %d s", fire.second())
                    .isTrue();
            assertThat(rule.isDue(t(fire.second()), 0, FireOrigin.after("upstream", List.of(), false, "upstream")))
                    .as("item 0 of a fire its upstream recorded at %d s", fire.second())
                    .isTrue();
        }
    }

    @Test
    void withoutAScheduleAnyFireTheCoreIsToldOfIsDueWhateverItsTime() {
        DueRule told = new DueRule(
                new ScheduleHistory(
                        List.of(entry(0, false, true, 5, 4, Set.of()), entry(12, false, true, 3, 4, Set.of()))),
                null);

        assertThat(told.isDue(t(11), 0, SCHEDULED)).isTrue();
        assertThat(told.isScheduled(t(15))).isFalse();
        assertThat(told.scheduled(t(0), t(30), 10)).isEmpty();
    }

    @Test
    void aStaleTriggersFireOfTheOldCronIsNotMadeUpForTheOtherOwners() {
        DueRule rule = rule(entry(0, false, true, 5, 4, Set.of()), entry(12, false, true, 3, 4, Set.of()));
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        // A trigger that had not seen the change yet fired at 20, on the old cron, and claimed its item.
        claimed.put(t(20), Set.of(0));
        claimed.put(t(21), Set.of(0, 1, 2, 3));

        MakeUpPlan plan = LedgerRules.makeUps(
                claimed,
                List.of(1, 2, 3),
                MisfirePolicy.ALL,
                t(22),
                T0,
                fire -> SCHEDULED,
                slot -> rule.judge(slot, SCHEDULED));

        assertThat(plan.run()).isEmpty();
        assertThat(plan.notDue()).containsExactly(new Slot(1, t(20)), new Slot(2, t(20)), new Slot(3, t(20)));
    }

    @Test
    void aHistoryOfAJobThatChangesItsCronOftenKeepsEveryEntryItsHorizonNeeds() {
        ScheduleHistory history = new ScheduleHistory(List.of(entry(0, true, true, 1, 4, Set.of())));
        for (int second = 1; second <= 200; second++) {
            history = history.with(entry(second, false, true, second % 2 == 0 ? 1 : 2, 4, Set.of()), t(0));
        }
        DueRule rule = rule(history.entries().toArray(Entry[]::new));

        assertThat(history.entries()).hasSize(201);
        assertThat(rule.start()).as("its definition, still kept").isEqualTo(t(0));
        assertThat(rule.inForceAt(t(7)).cron()).as("what held at 7 s").isEqualTo("*/2 * * * * *");
    }

    @Test
    void aHistoryPastItsSizeBoundDropsItsOldestEntriesAndKeepsItsLatest() {
        Set<Integer> all = new TreeSet<>();
        for (int item = 0; item < 10_000; item++) {
            all.add(item);
        }
        // Each entry lists ten thousand disabled items, some 49 kB: three pass the bound.
        ScheduleHistory history = new ScheduleHistory(List.of(entry(0, true, true, 1, 10_000, all)))
                .with(entry(10, false, true, 2, 10_000, all), Instant.MIN)
                .with(entry(20, false, true, 1, 10_000, all), Instant.MIN);

        assertThat(history.entries()).extracting(Entry::from).containsExactly(t(10), t(20));
        assertThat(history.encode().length).isLessThanOrEqualTo(ScheduleHistory.MAX_BYTES);
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
