package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.apache.zookeeper.data.Stat;

/** A checkpoint travels in its claim's node whatever its characters, and stays with the claim from owner to owner. */
class ClaimCheckpointPropertiesTest {

    private static final Instant FIRE = Instant.parse("2026-11-30T10:15:00Z");

    @Property
    void anyCheckpointReadsBackAsItWasSavedAndLeavesTheOtherFieldsAlone(
            @ForAll @StringLength(max = 200) String checkpoint) {
        Claim saved = running().withCheckpoint(checkpoint);

        Claim read = Claim.decode(saved.item(), FIRE, saved.encode(), stat(saved.version()));

        assertThat(read.checkpoint()).isEqualTo(checkpoint);
        assertThat(read.withCheckpoint("other")).isEqualTo(saved.withCheckpoint("other"));
    }

    @Property
    void aTakeOverAndAReRunCarryTheLastCheckpointAndANewClaimHasNone(
            @ForAll @StringLength(max = 50) String checkpoint) {
        Claim saved = running().withCheckpoint(checkpoint);

        assertThat(saved.takenOverBy("b", 0xbL, ExecutionSource.FAILOVER, FIRE).checkpoint())
                .isEqualTo(checkpoint);
        assertThat(RerunRule.reopened(saved.with(ClaimState.FAILED, FIRE), FIRE).checkpoint())
                .isEqualTo(checkpoint);
        assertThat(saved.with(ClaimState.DONE, FIRE).atRetry(1).checkpoint()).isEqualTo(checkpoint);
        assertThat(running().checkpoint()).isNull();
        assertThat(Claim.decode(0, FIRE, running().encode(), stat(3)).checkpoint())
                .isNull();
    }

    private static Claim running() {
        return Claim.first(0, FIRE, "a", 0xaL, ExecutionSource.NORMAL, 1, 4, FIRE)
                .startedAt(FIRE)
                .written(stat(3), true);
    }

    private static Stat stat(int version) {
        Stat stat = new Stat();
        stat.setVersion(version);
        stat.setMzxid(42);
        return stat;
    }
}
