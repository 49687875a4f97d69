package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.ledger.LedgerRules.MakeUpPlan;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The due rule over random schedule histories: crons of "every k seconds", the job disabled and enabled, items disabled
 * and enabled, counts raised and lowered, definitions. Each property says what the history promises an operator.
 */
class DueRulePropertiesTest {

    static final Instant T0 = Instant.ofEpochSecond(3_000_000);

    /** A fire told of (an operator's): held to every rule but the cron's, so what is not due for it is not for any. */
    private static final FireOrigin TOLD_OF = FireOrigin.manual(null);

    /** Seconds the histories span. */
    static final int SPAN = 120;

    /** The cron {@code *}{@code /k * * * * *}: every k seconds, on multiples of k. */
    static final DueRule.Cron EVERY_K_SECONDS = (entry, after) -> {
        int k = periodOf(entry.cron());
        long next = Math.floorDiv(after.getEpochSecond(), k) * k + k;
        return Instant.ofEpochSecond(next);
    };

    static int periodOf(String cron) {
        String seconds = cron.split(" ")[0];
        return seconds.equals("*") ? 1 : Integer.parseInt(seconds.substring(2));
    }

    static boolean cronFires(Entry entry, Instant time) {
        return time.getNano() == 0 && time.getEpochSecond() % periodOf(entry.cron()) == 0;
    }

    @Property(tries = 1000)
    void noFireInsideADisabledWindowIsEverDue(@ForAll("histories") ScheduleHistory history) {
        DueRule rule = new DueRule(history, EVERY_K_SECONDS);

        for (int second = -5; second < SPAN; second++) {
            Instant time = T0.plusSeconds(second);
            Entry held = inForce(history, time);
            if (held == null || !held.enabled()) {
                assertThat(rule.isScheduled(time)).as("scheduled at %s", second).isFalse();
                for (int item = 0; item < 8; item++) {
                    assertThat(rule.isDue(time, item, TOLD_OF))
                            .as("item %s due at %s", item, second)
                            .isFalse();
                }
            }
            if (held != null) {
                for (int item : held.disabledItems()) {
                    assertThat(rule.isDue(time, item, TOLD_OF))
                            .as("disabled item %s due at %s", item, second)
                            .isFalse();
                }
            }
        }
    }

    @Property(tries = 1000)
    void aFireOfTheCronBeforeAChangeIsNeverDueAfterItUnlessTheNewCronHasIt(
            @ForAll("histories") ScheduleHistory history) {
        DueRule rule = new DueRule(history, EVERY_K_SECONDS);
        List<Entry> entries = history.entries();

        for (int index = 1; index < entries.size(); index++) {
            Entry before = entries.get(index - 1);
            Entry after = entries.get(index);
            Instant until = index + 1 < entries.size() ? entries.get(index + 1).from() : T0.plusSeconds(SPAN);
            for (Instant time = after.from(); time.isBefore(until); time = time.plusSeconds(1)) {
                if (cronFires(before, time) && !cronFires(after, time)) {
                    assertThat(rule.isScheduled(time))
                            .as("old cron's fire at %s", time)
                            .isFalse();
                }
            }
            // And the new cron's fires before the change are not due by it.
            for (Instant time = before.from(); time.isBefore(after.from()); time = time.plusSeconds(1)) {
                if (rule.isScheduled(time)) {
                    assertThat(cronFires(before, time)).as("fire at %s", time).isTrue();
                }
            }
        }
    }

    @Property(tries = 1000)
    void theScheduledFiresAreExactlyTheFiresOfTheCronInForceWhileTheJobWasEnabled(
            @ForAll("histories") ScheduleHistory history) {
        DueRule rule = new DueRule(history, EVERY_K_SECONDS);
        List<Instant> expected = new ArrayList<>();
        for (int second = 0; second < SPAN; second++) {
            Instant time = T0.plusSeconds(second);
            Entry held = inForce(history, time);
            if (held != null && held.enabled() && cronFires(held, time)) {
                expected.add(time);
            }
        }

        assertThat(rule.scheduled(T0.minusMillis(1), T0.plusSeconds(SPAN), 10_000))
                .containsExactlyElementsOf(expected);
        expected.forEach(time -> assertThat(rule.isScheduled(time)).isTrue());
    }

    @Property(tries = 1000)
    void nothingBeforeADefinitionIsDueAndAnItemIsDueOnlyBelowEveryCountFromItsFireOn(
            @ForAll("histories") ScheduleHistory history) {
        DueRule rule = new DueRule(history, EVERY_K_SECONDS);
        Entry first = history.entries().get(0);

        for (int second = -5; second < SPAN; second++) {
            Instant time = T0.plusSeconds(second);
            if (first.defined() && time.isBefore(first.from())) {
                assertThat(rule.isScheduled(time)).isFalse();
                assertThat(rule.dueCount(time)).isZero();
                continue;
            }
            int least = history.entries().stream()
                    .filter(entry -> entry.from().isAfter(time) || entry == inForce(history, time))
                    .mapToInt(Entry::count)
                    .min()
                    .orElseThrow();
            assertThat(rule.dueCount(time)).isEqualTo(least);
            for (int item = least; item < 8; item++) {
                assertThat(rule.isDue(time, item, TOLD_OF)).isFalse();
            }
        }
    }

    @Property(tries = 1000)
    void onceCoalescesEveryRunOfMissedDueFiresToOne(
            @ForAll("histories") ScheduleHistory history, @ForAll("seeds") long seed) {
        Random random = new Random(seed);
        DueRule rule = new DueRule(history, EVERY_K_SECONDS);
        // The ledger: every second holds a fire (scheduled or told of), some items of it claimed.
        SortedMap<Instant, Set<Integer>> claimed = new TreeMap<>();
        for (int second = 0; second < SPAN; second += 1 + random.nextInt(3)) {
            Set<Integer> items = new HashSet<>();
            for (int item = 0; item < 6; item++) {
                if (random.nextInt(3) == 0) {
                    items.add(item);
                }
            }
            claimed.put(T0.plusSeconds(second), items);
        }
        List<Integer> mine = List.of(0, 1, 2, 3, 4, 5);

        MakeUpPlan plan = LedgerRules.makeUps(
                claimed,
                mine,
                MisfirePolicy.ONCE,
                Instant.MAX,
                Instant.MIN,
                fire -> FireOrigin.SCHEDULED,
                slot -> rule.judge(slot, FireOrigin.SCHEDULED));

        for (int item : mine) {
            // The runs of missed due fires: split by the claimed due fires only.
            List<List<Slot>> runs = new ArrayList<>();
            List<Slot> current = new ArrayList<>();
            List<Slot> notDue = new ArrayList<>();
            for (Map.Entry<Instant, Set<Integer>> fire : claimed.entrySet()) {
                Slot slot = new Slot(item, fire.getKey());
                boolean due = rule.isDue(slot.fireTime(), slot.item(), FireOrigin.SCHEDULED);
                if (fire.getValue().contains(item)) {
                    if (due && !current.isEmpty()) {
                        runs.add(current);
                        current = new ArrayList<>();
                    }
                } else if (due) {
                    current.add(slot);
                } else {
                    notDue.add(slot);
                }
            }
            if (!current.isEmpty()) {
                runs.add(current);
            }
            List<Slot> made =
                    plan.run().stream().filter(slot -> slot.item() == item).toList();
            assertThat(made).as("runs of item %s", item).hasSize(runs.size());
            for (int index = 0; index < runs.size(); index++) {
                List<Slot> run = runs.get(index);
                Slot latest = run.get(run.size() - 1);
                assertThat(made.get(index)).isEqualTo(latest);
                run.subList(0, run.size() - 1)
                        .forEach(slot -> assertThat(plan.coalesced()).containsEntry(slot, latest));
            }
            assertThat(plan.notDue().stream().filter(slot -> slot.item() == item))
                    .containsExactlyElementsOf(notDue);
        }
        assertThat(plan.skipped()).isEmpty();
        assertThat(plan.run()).allMatch(slot -> rule.isDue(slot.fireTime(), slot.item(), FireOrigin.SCHEDULED));
        assertThat(plan.coalesced().keySet())
                .allMatch(slot -> rule.isDue(slot.fireTime(), slot.item(), FireOrigin.SCHEDULED));
    }

    @Property(tries = 1000)
    void notDueIsFinalOnlyWhenTheHistoryRecordsTheStateSeenAndDueIsDueEitherWay(
            @ForAll("histories") ScheduleHistory history,
            @ForAll("histories") ScheduleHistory another,
            @ForAll boolean seesWhatIsRecorded,
            @ForAll @IntRange(min = 0, max = SPAN) int second,
            @ForAll @IntRange(min = 0, max = 8) int item) {
        Entry seen = seesWhatIsRecorded ? history.latest() : another.latest();
        Slot slot = new Slot(item, T0.plusSeconds(second));

        DueRule.Due judged = new DueRule(history, EVERY_K_SECONDS, seen).judge(slot, FireOrigin.SCHEDULED);

        boolean due = new DueRule(history, EVERY_K_SECONDS).isDue(slot.fireTime(), slot.item(), FireOrigin.SCHEDULED);
        assertThat(judged == DueRule.Due.YES).isEqualTo(due);
        if (history.records(seen)) {
            assertThat(judged).isNotEqualTo(DueRule.Due.NOT_KNOWN_YET);
        } else {
            assertThat(judged).isNotEqualTo(DueRule.Due.NO);
        }
    }

    @Property(tries = 500)
    void aHistoryReadsBackAsItWasStored(@ForAll("histories") ScheduleHistory history) {
        assertThat(ScheduleHistory.decode(history.encode())).isEqualTo(history);
    }

    /** The entry in force at a time, by brute force. */
    static Entry inForce(ScheduleHistory history, Instant time) {
        Entry held = null;
        for (Entry entry : history.entries()) {
            if (!entry.from().isAfter(time)) {
                held = entry;
            }
        }
        if (held == null && !history.entries().get(0).defined()) {
            held = history.entries().get(0);
        }
        return held;
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    @Provide
    Arbitrary<ScheduleHistory> histories() {
        return Arbitraries.longs().map(DueRulePropertiesTest::randomHistory);
    }

    static ScheduleHistory randomHistory(long seed) {
        Random random = new Random(seed);
        List<Entry> entries = new ArrayList<>();
        int at = random.nextInt(10);
        boolean enabled = true;
        int period = 1 + random.nextInt(5);
        int count = 1 + random.nextInt(8);
        TreeSet<Integer> disabled = new TreeSet<>();
        boolean defined = random.nextBoolean();
        int changes = 1 + random.nextInt(6);
        for (int change = 0; change < changes && at < SPAN; change++) {
            if (change > 0) {
                switch (random.nextInt(4)) {
                    case 0 -> enabled = !enabled;
                    case 1 -> period = 1 + random.nextInt(5);
                    case 2 -> count = 1 + random.nextInt(8);
                    default -> {
                        int item = random.nextInt(8);
                        if (!disabled.remove(item)) {
                            disabled.add(item);
                        }
                    }
                }
            }
            entries.add(new Entry(
                    T0.plusSeconds(at).plusMillis(random.nextInt(2) * 500L),
                    change == 0 && defined,
                    enabled,
                    (period == 1 ? "*" : "*/" + period) + " * * * * *",
                    ZoneOffset.UTC,
                    count,
                    new TreeSet<>(disabled)));
            at += 1 + random.nextInt(30);
        }
        return new ScheduleHistory(entries);
    }
}
