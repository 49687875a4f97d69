package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import io.shardingjob.core.internal.ledger.DueRule;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** When an item's end knows, without reading the ledger, every fire the item missed while its run went on. */
class OwedTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** Every second since long before the fires below. */
    private static final DueRule EVERY_SECOND = new DueRule(
            new ScheduleHistory(List.of(
                    new Entry(T0.minusSeconds(3600), true, true, "* * * * * *", ZoneOffset.UTC, 8, new TreeSet<>()))),
            (entry, after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1));

    @Test
    void everyFireAfterTheRunsOwnFoundTheItemBusyHereSoNothingIsRead() {
        Owed owed = Owed.byFire(7, T0.plusSeconds(1), 4, 9).and(Owed.byFire(7, T0.plusSeconds(2), 4, 9));

        assertThat(owed.knowsEveryMissedFire(T0, 4, 9, EVERY_SECOND)).isTrue();
    }

    @Test
    void aScheduledFireNotPlannedHereIsOnlyKnownFromTheLedger() {
        Owed owed = Owed.byFire(7, T0.plusSeconds(1), 4, 9).and(Owed.byFire(7, T0.plusSeconds(3), 4, 9));

        assertThat(owed.knowsEveryMissedFire(T0, 4, 9, EVERY_SECOND))
                .as("the fire at +2 s was not planned here")
                .isFalse();
    }

    @Test
    void aFireOwedBeforeTheRunsOwnIsLeftToTheAuditThatTheEndThenAsksFor() {
        // An audit found the fires of +1 s and +2 s missed while the run of +3 s went on (the item had just moved
        // here).
        Owed owed = Owed.byFire(7, T0.plusSeconds(1), 4, 9)
                .and(Owed.byFire(7, T0.plusSeconds(2), 4, 9))
                .and(Owed.byFire(7, T0.plusSeconds(4), 4, 9));

        assertThat(owed.knowsEveryMissedFire(T0.plusSeconds(3), 4, 9, EVERY_SECOND))
                .as("made up only by an audit's read of the ledger")
                .isFalse();
    }

    @Test
    void anotherAssignmentOrSessionIsOnlyKnownFromTheLedger() {
        Owed owed = Owed.byFire(7, T0.plusSeconds(1), 4, 9);

        assertThat(owed.knowsEveryMissedFire(T0, 5, 9, EVERY_SECOND)).isFalse();
        assertThat(owed.knowsEveryMissedFire(T0, 4, 10, EVERY_SECOND)).isFalse();
    }
}
