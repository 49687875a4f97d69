package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ItemTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** An item that exceeds its job's timeout is interrupted and recorded as timed out. */
class ExecutionTimeoutTest extends JobInstanceTestSupport {

    private static final Duration HANG = Duration.ofMinutes(5);

    private static JobConfiguration.Builder job() {
        return JobConfiguration.builder("slow")
                .cron("0 0 0 * * *")
                .shardingTotalCount(2)
                .timeout(Duration.ofMillis(200));
    }

    @Test
    void interruptsAnItemThatExceedsTheTimeoutAndRecordsItTimedOut() throws Exception {
        Instance instance = start("only", job().build(), context -> {
            if (context.item() == 0) {
                Thread.sleep(HANG.toMillis());
            }
        });
        await().until(() -> settledAt(2, List.of(instance)));

        FireReport report = instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        ItemResult hung = report.results().get(0);
        assertThat(hung.timedOut()).isTrue();
        assertThat(hung.failure())
                .isInstanceOf(ItemTimeoutException.class)
                .hasCauseInstanceOf(InterruptedException.class)
                .hasMessageContaining("item 0");
        assertThat(Duration.between(hung.start(), hung.end())).isLessThan(HANG);
        ItemResult quick = report.results().get(1);
        assertThat(quick.succeeded()).isTrue();
        assertThat(quick.timedOut()).isFalse();
    }

    @Test
    void retriesATimedOutItemWithoutTheInterruptMeantForTheFirstRun() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Instance instance = start("only", job().shardingTotalCount(1).retries(1).build(), context -> {
            if (runs.incrementAndGet() == 1) {
                Thread.sleep(HANG.toMillis());
            }
            // A stale interrupt would make this fail the retry.
            Thread.sleep(1);
        });
        await().until(() -> settledAt(1, List.of(instance)));

        FireReport report = instance.coordinator().fire(ExecutionSource.NORMAL, Instant.now());

        assertThat(report.results())
                .extracting(ItemResult::timedOut, ItemResult::succeeded)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(true, false),
                        org.assertj.core.groups.Tuple.tuple(false, true));
    }
}
