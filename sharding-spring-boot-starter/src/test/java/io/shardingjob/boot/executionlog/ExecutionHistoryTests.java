package io.shardingjob.boot.executionlog;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Instant;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ExecutionHistoryTests {

    @Test
    void keepsTheNewestExecutionsOfEachJobUpToItsCapacity() {
        ExecutionHistory history = new ExecutionHistory(3);
        IntStream.range(0, 5).forEach(item -> history.executed(execution("orderSync", item)));
        history.executed(execution("report", 9));

        assertThat(history.recent("orderSync"))
                .extracting(ExecutionRecord::item)
                .containsExactly(4, 3, 2);
        assertThat(history.recent("report")).extracting(ExecutionRecord::item).containsExactly(9);
        assertThat(history.recent("unknown")).isEmpty();
    }

    @Test
    void keepsNothingWhenTheCapacityIsZero() {
        ExecutionHistory history = new ExecutionHistory(0);
        history.executed(execution("orderSync", 0));
        assertThat(history.recent("orderSync")).isEmpty();
    }

    private static ExecutionRecord execution(String job, int item) {
        Instant now = Instant.now();
        return new ExecutionRecord(
                job, item, "", "instance", 1, now, now, now, Outcome.SUCCESS, ExecutionSource.NORMAL, null, 1, "", 0);
    }
}
