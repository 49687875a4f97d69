package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Which due fires the ledger must record, as a pure function of the schedule, the seen fires and the ledger. */
class DueFiresTest {

    private static final Instant T = Instant.ofEpochSecond(1_000_000);

    private static final Predicate<Instant> LATE_BEFORE_T_PLUS_10 = fireTime -> fireTime.isBefore(T.plusSeconds(10));

    @Test
    void scheduledAndSeenFiresAfterTheWatermarkThatTheLedgerDoesNotHoldAreRecordedOldestFirst() {
        List<Instant> due = DueFires.unrecorded(
                List.of(at(1), at(2), at(3), at(4)),
                List.of(at(3), at(5)),
                List.of(at(0), at(2)),
                at(0),
                LATE_BEFORE_T_PLUS_10,
                T.minusSeconds(600));

        assertThat(due).containsExactly(at(1), at(3), at(4), at(5));
    }

    @Test
    void firesAtOrBeforeTheWatermarkOrBeforeTheHorizonAreNotRecordedAndASeenFireOnlyOnceItIsLate() {
        // The scheduled fires come bounded by the caller (before a settled fire); seen ones must be late themselves.
        List<Instant> due = DueFiresTest.unrecordedOf(
                List.of(at(1), at(2), at(3)), List.of(at(4), at(12)), List.of(), at(1), at(3));

        assertThat(due).containsExactly(at(3), at(4));
    }

    @Test
    void aLongOutagesBacklogIsRecordedAFewHundredFiresAtATime() {
        List<Instant> scheduled =
                IntStream.range(1, 1000).mapToObj(second -> at(-second)).toList();

        List<Instant> due = DueFires.unrecorded(
                scheduled, List.of(), List.of(), T.minusSeconds(2000), LATE_BEFORE_T_PLUS_10, T.minusSeconds(3000));

        assertThat(due).hasSize(DueFires.MAX_PER_PASS).startsWith(at(-999));
    }

    @Test
    void theHistoryStartsAtTheWatermarkOnceMovedElseAtTheFirstFireAndAJobThatNeverFiredHasNone() {
        assertThat(DueFires.historyStart(at(5), List.of(at(1), at(6)), Instant.EPOCH))
                .isEqualTo(at(5));
        assertThat(DueFires.historyStart(Instant.EPOCH, List.of(at(1), at(6)), Instant.EPOCH))
                .isEqualTo(at(1));
        assertThat(DueFires.historyStart(Instant.EPOCH, List.of(), Instant.EPOCH))
                .isNull();
    }

    @Test
    void aJobDefinedAtRunTimeOwesItsFiresFromItsDefinitionAlsoBeforeItFirstRan() {
        assertThat(DueFires.historyStart(Instant.EPOCH, List.of(at(3), at(4)), at(1)))
                .isEqualTo(at(1));
        assertThat(DueFires.historyStart(Instant.EPOCH, List.of(), at(1))).isEqualTo(at(1));
        assertThat(DueFires.historyStart(at(5), List.of(at(3), at(6)), at(1))).isEqualTo(at(5));
    }

    private static Instant at(int second) {
        return T.plusSeconds(second);
    }

    private static List<Instant> unrecordedOf(
            List<Instant> scheduled, List<Instant> seen, List<Instant> recorded, Instant watermark, Instant horizon) {
        return DueFires.unrecorded(scheduled, seen, recorded, watermark, LATE_BEFORE_T_PLUS_10, horizon);
    }
}
