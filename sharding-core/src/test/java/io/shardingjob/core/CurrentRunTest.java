package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Code a job calls finds the run it belongs to on the job's thread, and nothing once the job returned. */
class CurrentRunTest extends JobInstanceTestSupport {

    private static final ShardingContext OUTER = context(0);
    private static final ShardingContext INNER = context(1);

    @Test
    void everyItemsCodeFindsItsOwnRunAndCodeOutsideAnyJobFindsNone() throws Exception {
        JobConfiguration config = JobConfiguration.builder("current")
                .cron("0 0 0 * * *")
                .shardingTotalCount(3)
                .build();
        Map<Integer, Optional<ShardingContext>> seen = new ConcurrentHashMap<>();
        Instance instance = start("only", config, context -> seen.put(context.item(), CurrentRun.context()));
        await().atMost(Duration.ofSeconds(30)).until(() -> settledAt(3, List.of(instance)));

        instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        assertThat(seen).hasSize(3);
        seen.forEach((item, current) -> assertThat(current)
                .hasValueSatisfying(run -> assertThat(run.item()).isEqualTo(item)));
        assertThat(CurrentRun.context())
                .as("the calling thread, outside any job")
                .isEmpty();
    }

    @Test
    void aRunExecutedInsideAnotherGivesTheOuterOneBackWhenItEndsEvenByThrowing() throws Exception {
        CurrentRun.execute(OUTER, outer -> {
            assertThatThrownBy(() -> CurrentRun.execute(INNER, inner -> {
                        assertThat(CurrentRun.context()).contains(INNER);
                        throw new IllegalStateException("inner failed");
                    }))
                    .hasMessage("inner failed");
            assertThat(CurrentRun.context()).contains(OUTER);
        });
        assertThat(CurrentRun.context()).isEmpty();
    }

    private static ShardingContext context(int item) {
        return new ShardingContext(
                "current", "task", 2, item, "", "", 1, "only", 7, Instant.EPOCH, ExecutionSource.NORMAL, "current");
    }
}
