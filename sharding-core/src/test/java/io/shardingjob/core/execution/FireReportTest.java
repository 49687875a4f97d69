package io.shardingjob.core.execution;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FireReportTest {

    private static final Instant FIRE = Instant.EPOCH;

    @Test
    void aFireSucceededWhenTheLastRunOfEachItemDid() {
        assertThat(report(run(0, true), run(1, true)).succeeded()).isTrue();
        assertThat(report(run(0, false), run(0, true), run(1, true)).succeeded())
                .as("a retry that succeeded makes up for the run before it")
                .isTrue();
        assertThat(report(run(0, true), run(1, true), run(1, false)).succeeded())
                .as("the last run of item 1 failed")
                .isFalse();
        assertThat(FireReport.skippedEntirely("job", "disabled").succeeded())
                .as("a fire that ran nothing here")
                .isFalse();
    }

    private static FireReport report(ItemResult... results) {
        return new FireReport("job", 1, List.of(results), Map.of(), null);
    }

    private static ItemResult run(int item, boolean succeeded) {
        ShardingContext context =
                new ShardingContext("job", "task", 2, item, "", "", 1, "a", 0, FIRE, ExecutionSource.NORMAL, "job");
        return new ItemResult(
                context,
                FIRE,
                FIRE,
                succeeded ? null : new IllegalStateException("failed"),
                ExecutionSource.NORMAL,
                FIRE,
                0);
    }
}
