package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A fire is known settled here only when every one of its items ended here, and only while it is remembered. */
class RecordedEndsTest {

    private final Instant fire = Instant.now();

    @Test
    void aFireIsSettledHereOnceEveryItemEndedHere() {
        RecordedEnds ends = new RecordedEnds(100);

        ends.recorded(ended(0, fire));
        assertThat(ends.settledHere(fire)).as("item 1 has not ended here").isEmpty();
        ends.recorded(claim(1, fire));
        assertThat(ends.settledHere(fire))
                .as("a claim still running is not an end")
                .isEmpty();
        ends.recorded(ended(1, fire));

        assertThat(ends.settledHere(fire))
                .hasValueSatisfying(view -> assertThat(view.isSettled()).isTrue());
    }

    @Test
    void theOldestFiresAreForgottenBeyondTheBoundAndAtTheWatermark() {
        RecordedEnds ends = new RecordedEnds(4);
        for (int fire = 0; fire < 3; fire++) {
            ends.recorded(ended(0, this.fire.plusSeconds(fire)));
            ends.recorded(ended(1, this.fire.plusSeconds(fire)));
        }

        assertThat(ends.settledHere(fire)).as("beyond four claims").isEmpty();
        assertThat(ends.settledHere(fire.plusSeconds(1))).isPresent();

        ends.forgetThrough(fire.plusSeconds(1));
        assertThat(ends.settledHere(fire.plusSeconds(1))).isEmpty();
        assertThat(ends.settledHere(fire.plusSeconds(2))).isPresent();
    }

    private static Claim claim(int item, Instant fireTime) {
        return Claim.first(item, fireTime, "a", 7, ExecutionSource.NORMAL, 1, 2, fireTime);
    }

    private static Claim ended(int item, Instant fireTime) {
        return claim(item, fireTime).with(ClaimState.DONE, fireTime);
    }
}
