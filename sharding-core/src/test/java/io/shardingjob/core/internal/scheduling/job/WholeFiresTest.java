package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which fires an audit may leave unread: those claimed whole, under the same assignment and session, none given up. */
class WholeFiresTest {

    private final LocalFires fires = new LocalFires();

    private final Instant fire = Instant.now();

    @Test
    void aFireClaimedWholeIsWholeOnlyUnderItsAssignmentAndSession() {
        fires.claimedWhole(fire, 3, 7);

        assertThat(fires.isWhole(fire, 3, 7)).isTrue();
        assertThat(fires.isWhole(fire, 4, 7)).as("a reshard since").isFalse();
        assertThat(fires.isWhole(fire, 3, 8)).as("a new session since").isFalse();
    }

    @Test
    void aFireOneOfWhoseRunsGaveItsClaimUpIsNoLongerWhole() {
        fires.claimedWhole(fire, 3, 7);

        fires.notWhole(fire);

        assertThat(fires.isWhole(fire, 3, 7)).isFalse();
    }

    @Test
    void onlyTheLatestFiresAreRememberedAndNoneAtOrBeforeTheWatermark() {
        int remembered = LocalFires.REMEMBERED_FIRES;
        for (int fired = 0; fired <= remembered; fired++) {
            fires.claimedWhole(fire.plusSeconds(fired), 3, 7);
        }
        assertThat(fires.isWhole(fire, 3, 7)).isFalse();

        fires.forgetThrough(fire.plusSeconds(remembered - 1));

        assertThat(fires.isWhole(fire.plusSeconds(remembered - 1), 3, 7)).isFalse();
        assertThat(fires.isWhole(fire.plusSeconds(remembered), 3, 7)).isTrue();
    }
}
