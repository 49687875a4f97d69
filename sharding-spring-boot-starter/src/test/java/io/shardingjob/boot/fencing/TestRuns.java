package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;

/** Runs of the fencing tests' job, {@code settlement}, by item and fencing token. */
final class TestRuns {

    private TestRuns() {}

    static ShardingContext run(int item, long token) {
        return new ShardingContext(
                "settlement",
                "task",
                4,
                item,
                "east",
                "",
                1,
                "app-1",
                token,
                Instant.parse("2026-11-30T10:15:00Z"),
                ExecutionSource.NORMAL,
                "settlement");
    }
}
