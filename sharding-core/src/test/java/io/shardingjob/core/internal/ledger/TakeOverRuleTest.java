package io.shardingjob.core.internal.ledger;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Instant;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Whether an orphan runs or is recorded failed, as a table: by what its claim was written under. */
class TakeOverRuleTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T00:00:00Z");

    /**
     * An orphan runs with failover on now, or when nothing of it started, or when its start was written ahead of its run
     * (only ever under failover on): switching failover off later does not make a run that may never have begun, or
     * began where repeating it was allowed, a failed one. Without a start written ahead, a run that started and was cut
     * is not repeated under failover off.
     */
    @ParameterizedTest(name = "{0}, start written ahead={1}, failover now={2} -> runs={3}")
    @CsvSource({
        "RESERVED,  false, false, true",
        "HANDED_ON, false, false, true",
        "RUNNING,   false, true,  true",
        "RUNNING,   false, false, false",
        "RELEASED,  false, false, false",
        "RUNNING,   true,  true,  true",
        "RUNNING,   true,  false, true",
        "RELEASED,  true,  false, true",
    })
    void anOrphanIsJudgedByWhatItsClaimWasWrittenUnderNotByTheFailoverSettingNow(
            ClaimState state, boolean startAhead, boolean failoverNow, boolean runs) {
        Claim reserved = Claim.first(1, FIRE, "a", 7, ExecutionSource.NORMAL, 1, 4, FIRE);
        Claim written = startAhead ? reserved.startedAheadAt(FIRE) : reserved.startedAt(FIRE);
        Claim orphan = state == ClaimState.RESERVED ? reserved : written.with(state, null);

        assertThat(TakeOverRule.runsOrphan(orphan, failoverNow)).isEqualTo(runs);
        // As stored and read back: the rule reads what the ledger says, not what this instance remembers.
        Claim read = Claim.decode(1, FIRE, orphan.encode(), new Stat());
        assertThat(TakeOverRule.runsOrphan(read, failoverNow)).isEqualTo(runs);
    }

    /**
     * A claim stored before whether its start was written ahead was recorded keeps its meaning: judged by the job's
     * setting now, as it was then.
     */
    @Test
    void aRunningClaimStoredWithoutTheMarkIsJudgedByTheFailoverSettingNow() {
        byte[] stored = "instance=a\nsession=7\nstate=RUNNING\nepoch=1\ntotal=4\nstarted=0\n".getBytes(UTF_8);
        Claim read = Claim.decode(1, FIRE, stored, new Stat());

        assertThat(read.startAhead()).isFalse();
        assertThat(TakeOverRule.runsOrphan(read, true)).isTrue();
        assertThat(TakeOverRule.runsOrphan(read, false)).isFalse();
    }

    /** A take-over's new owner writes its own start: the mark goes with the owner that wrote it. */
    @Test
    void aTakeOverClearsTheMarkAndAStartWrittenAgainByItsRunToo() {
        Claim ahead =
                Claim.first(1, FIRE, "a", 7, ExecutionSource.NORMAL, 1, 4, FIRE).startedAheadAt(FIRE);

        assertThat(ahead.takenOverBy("b", 9, ExecutionSource.FAILOVER, FIRE).startAhead())
                .isFalse();
        assertThat(ahead.startedAt(FIRE).startAhead()).isFalse();
        assertThat(ahead.with(ClaimState.RELEASED, FIRE).startAhead()).isTrue();
    }
}
