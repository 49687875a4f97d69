package io.shardingjob.core.internal.scheduling.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class ReconcilePhaseTest {

    @Test
    void anInstanceChecksAtTheMultiplesOfTheIntervalShiftedByItsPhase() {
        long phase = Math.floorMod("i".hashCode(), 1_000);
        assertThat(ReconcilePhase.delayToNext(10_000 + phase, 1_000, "i")).isEqualTo(1_000);
        assertThat(ReconcilePhase.delayToNext(10_000 + phase + 1, 1_000, "i")).isEqualTo(999);
        assertThat(ReconcilePhase.delayToNext(10_000 + phase - 1, 1_000, "i")).isEqualTo(1);
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> ReconcilePhase.delayToNext(0, 0, "i"));
    }

    @Property
    void jobsOfOneInstanceStartedAtAnyTimesCheckAtTheSameInstants(
            @ForAll @LongRange(min = 0, max = 4_000_000_000_000L) long firstStart,
            @ForAll @IntRange(min = 0, max = 100_000) int laterBy,
            @ForAll @IntRange(min = 1, max = 600_000) int interval,
            @ForAll String instance) {
        long first = firstStart + ReconcilePhase.delayToNext(firstStart, interval, instance);
        long secondStart = firstStart + laterBy;
        long second = secondStart + ReconcilePhase.delayToNext(secondStart, interval, instance);

        assertThat(first - firstStart).isBetween(1L, (long) interval);
        assertThat(second - secondStart).isBetween(1L, (long) interval);
        assertThat(Math.floorMod(second - first, (long) interval)).isZero();
    }
}
