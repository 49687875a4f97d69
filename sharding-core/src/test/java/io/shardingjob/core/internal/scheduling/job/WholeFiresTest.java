package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which fires an audit may leave unread: those claimed whole, under the same assignment and session, none given up. */
class WholeFiresTest {

    private final WholeFires whole = new WholeFires(2);

    private final Instant fire = Instant.now();

    @Test
    void aFireClaimedWholeIsWholeOnlyUnderItsAssignmentAndSession() {
        whole.claimed(fire, 3, 7);

        assertThat(whole.isWhole(fire, 3, 7)).isTrue();
        assertThat(whole.isWhole(fire, 4, 7)).as("a reshard since").isFalse();
        assertThat(whole.isWhole(fire, 3, 8)).as("a new session since").isFalse();
    }

    @Test
    void aFireOneOfWhoseRunsGaveItsClaimUpIsNoLongerWhole() {
        whole.claimed(fire, 3, 7);

        whole.released(fire);

        assertThat(whole.isWhole(fire, 3, 7)).isFalse();
    }

    @Test
    void onlyTheLatestFiresAreRememberedAndNoneAtOrBeforeTheWatermark() {
        whole.claimed(fire, 3, 7);
        whole.claimed(fire.plusSeconds(1), 3, 7);
        whole.claimed(fire.plusSeconds(2), 3, 7);
        assertThat(whole.isWhole(fire, 3, 7)).isFalse();

        whole.forgetThrough(fire.plusSeconds(1));

        assertThat(whole.isWhole(fire.plusSeconds(1), 3, 7)).isFalse();
        assertThat(whole.isWhole(fire.plusSeconds(2), 3, 7)).isTrue();
    }
}
