package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ItemTimeoutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** How an item run's end reads in the log: the outcome comes from what the job threw. */
class ExecutionRecordTests {

    private static final Instant FIRE = Instant.parse("2026-11-30T10:15:00Z");

    private static final ShardingContext RUN = new ShardingContext(
            "settlement", "task", 4, 2, "east", "", 1, "app-1", 100, FIRE, ExecutionSource.NORMAL, "settlement");

    @Test
    void aRunIsSuccessfulFailedTimedOutOrFencedOutByWhatItThrew() {
        FencedOutException refused = new FencedOutException(RUN, "settlement where region = :region", 150L);

        assertThat(outcomeOf(null)).isEqualTo(Outcome.SUCCESS);
        assertThat(outcomeOf(new IllegalStateException("no"))).isEqualTo(Outcome.FAILED);
        assertThat(outcomeOf(new ItemTimeoutException("settlement", 2, Duration.ofSeconds(1), null)))
                .isEqualTo(Outcome.TIMED_OUT);
        assertThat(outcomeOf(refused)).isEqualTo(Outcome.FENCED_OUT);
        assertThat(outcomeOf(new RuntimeException("wrapped by the job", refused)))
                .as("a refusal the job wrapped")
                .isEqualTo(Outcome.FENCED_OUT);
    }

    @Test
    void aFailureWhoseCausesLoopBackIsFailedAndJudgedInFiniteTime() {
        IllegalStateException first = new IllegalStateException("first");
        IllegalStateException second = new IllegalStateException("second", first);
        first.initCause(second);

        assertThat(outcomeOf(first)).isEqualTo(Outcome.FAILED);
    }

    private static Outcome outcomeOf(@Nullable Throwable thrown) {
        return ExecutionRecord.of(
                        new ItemResult(RUN, FIRE, FIRE.plusMillis(5), thrown, ExecutionSource.NORMAL, FIRE, 0))
                .outcome();
    }
}
