package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ItemResult;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The audit against the fires of its own instance: it finds work left undone, and never repeats work being done. */
class LedgerAuditTest extends JobInstanceTestSupport {

    private static final JobConfiguration FOUR_ITEMS = JobConfiguration.builder("audited")
            .cron("* * * * * *")
            .shardingTotalCount(4)
            .failover(true)
            .build();

    @Test
    void anAuditRunningWhileFiresClaimAndEndTheirItemsNeverRunsAnItemOfAFireTwice() throws Exception {
        Instance only =
                start("only", FOUR_ITEMS, context -> {}, builder -> builder.reconcileInterval(Duration.ofMillis(10)));
        await().until(() -> settledAt(4, List.of(only)));
        Instant first = Instant.now().truncatedTo(ChronoUnit.MILLIS);

        for (int fire = 0; fire < 100; fire++) {
            only.coordinator().fire(ExecutionSource.NORMAL, first.plusMillis(10L * fire));
        }

        // Anything an audit started by mistake would show up as a second run of a slot.
        await().pollDelay(Duration.ofMillis(200))
                .until(() -> only.coordinator().openClaims().isEmpty());
        Map<String, Long> runsPerSlot = results.stream()
                .collect(Collectors.groupingBy(
                        (ItemResult result) -> result.context().item() + "@" + result.fireTime(),
                        Collectors.counting()));
        assertThat(runsPerSlot).hasSize(400);
        assertThat(runsPerSlot.values()).containsOnly(1L);
    }
}
