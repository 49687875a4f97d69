package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StartBatchTest {

    private static final long BOUND = StartBatch.AHEAD.toNanos();

    private static long micros(long micros) {
        return TimeUnit.MICROSECONDS.toNanos(micros);
    }

    /** Written with a leaving run's own start (its own counted in the unwritten ones and in the size). */
    @ParameterizedTest(name = "unwritten={0} ahead={1} running={2} item={3}us -> {4}")
    @CsvSource({
        // A thousand trivial items on eight threads: every start in the first run's request.
        "1000, 0,   8,  20,        1000",
        // Items of 5 ms on eight threads: eight threads free themselves ten times in 50 ms.
        "1000, 0,   8,  5000,      80",
        // Of those, 70 already written ahead: ten more.
        "1000, 70,  8,  5000,      10",
        // Items longer than the bound: one wave at a time, each run writing only its own start.
        "1000, 0,   8,  1000000,   1",
        "1000, 0,   8,  50001,     1",
        // Items as long as the bound: each thread frees itself once within it, so the next wave is written ahead.
        "1000, 0,   8,  50000,     8",
        // The pace unknown (no run of the job ended here yet): its own start alone.
        "1000, 0,   0,  -1,        1",
        // Fewer left to write than expected.
        "3,    0,   8,  20,        3",
        // As many written ahead as expected within the bound: none now (the leaving run writes its own all the same).
        "1000, 80,  8,  5000,      0",
    })
    void writesTheStartsOfTheRunsExpectedToLeaveTheQueueWithinTheBound(
            int unwritten, int ahead, int running, long itemMicros, int expected) {
        long item = itemMicros < 0 ? StartBatch.UNKNOWN : micros(itemMicros);
        assertThat(StartBatch.size(unwritten, ahead, running, item, BOUND)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "unwritten={0} ahead={1} running={2} item={3}us -> {4}")
    @CsvSource({
        // 80 leave within the bound: the next are asked for once fewer than 40 remain written ahead.
        "900, 39, 8, 5000, true",
        "900, 40, 8, 5000, false",
        // Nothing left to write.
        "0,   0,  8, 5000, false",
        // Runs that leave one at a time each write their own: nobody writes for them.
        "900, 0,  8, 1000000, false",
        "900, 0,  0, -1, false",
    })
    void asksForTheNextStartsOnceHalfOfThoseWrittenAheadLeft(
            int unwritten, int ahead, int running, long itemMicros, boolean refill) {
        long item = itemMicros < 0 ? StartBatch.UNKNOWN : micros(itemMicros);
        assertThat(StartBatch.refill(unwritten, ahead, running, item, BOUND)).isEqualTo(refill);
    }

    @Test
    void startsGoAheadOfTheirRunsOnlyWithFailoverOnWhereAKilledQueueIsRunAgainRatherThanRecordedFailed() {
        assertThat(StartBatch.writesAhead(true)).isTrue();
        assertThat(StartBatch.writesAhead(false)).isFalse();
    }

    @Test
    void aRunOfUnknownPaceOrLongerThanTheBoundIsExpectedAloneWhateverRunsBesideIt() {
        assertThat(StartBatch.expected(64, StartBatch.UNKNOWN, BOUND)).isEqualTo(1);
        assertThat(StartBatch.expected(64, BOUND + 1, BOUND)).isEqualTo(1);
        assertThat(StartBatch.expected(64, BOUND, BOUND)).isEqualTo(64);
    }

    /**
     * Whatever the pace: never more starts than are unwritten, never more written ahead than leave within the bound
     * (unless more were already), and a slower pace never writes more.
     */
    @Property
    void neverWritesMoreThanLeavesWithinTheBoundAndSlowerItemsNeverWriteMore(
            @ForAll @IntRange(min = 0, max = 100_000) int unwritten,
            @ForAll @IntRange(min = 0, max = 100_000) int ahead,
            @ForAll @IntRange(min = 0, max = 1_024) int running,
            @ForAll @LongRange(min = -1, max = 10_000_000_000L) long itemNanos,
            @ForAll @LongRange(min = 1, max = 10_000_000_000L) long slower) {
        int size = StartBatch.size(unwritten, ahead, running, itemNanos, BOUND);
        long expected = StartBatch.expected(running, itemNanos, BOUND);
        assertThat(size).isBetween(0, unwritten);
        assertThat((long) ahead + size).isLessThanOrEqualTo(Math.max(expected, ahead));
        if (itemNanos >= 0) {
            assertThat(StartBatch.size(unwritten, ahead, running, itemNanos + slower, BOUND))
                    .isLessThanOrEqualTo(size);
        }
        if (StartBatch.refill(unwritten, ahead, running, itemNanos, BOUND)) {
            assertThat(size).isPositive();
        }
    }
}
