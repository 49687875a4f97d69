package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Settles the orders of one region per item. Start a second copy of the application and watch the regions split
 * between the two; stop one and watch its regions come back to the other.
 *
 * <p>{@code sample.settlement-duration} (default {@code 0s}) makes every region take that long to settle, so that
 * items are visibly running in {@code /actuator/sharding} and a copy killed in the middle of a fire leaves work for
 * failover to finish. The end-to-end tests use it.
 *
 * <p>Each region's total for the fire is written to the {@code settlement} table through {@link SettlementStore}, which
 * fences it with {@link ShardingContext#fencingToken()} ({@code FencedJdbc}): a run that was taken over while it ran
 * cannot overwrite the row of the run that took it over, and ends fenced out. {@code FencedWritesAcrossProcessesIT}
 * freezes a copy mid-item to show it.
 */
@Component
class OrderSettlementJob {

    private static final Logger log = LoggerFactory.getLogger(OrderSettlementJob.class);

    private final Duration settlementDuration;

    private final SettlementStore store;

    OrderSettlementJob(@Value("${sample.settlement-duration:0s}") Duration settlementDuration, SettlementStore store) {
        this.settlementDuration = settlementDuration;
        this.store = store;
    }

    @ShardedJob(
            name = "orderSettlement",
            cron = "0/5 * * * * *",
            shardingTotalCount = 4,
            shardingItemParameters = "0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen",
            failover = true,
            description = "Settles the day's orders, one region per item")
    void settle(ShardingContext context) throws InterruptedException {
        log.info(
                "Settling orders of {} (item {} of {}, epoch {}) on instance {} for the fire of {}, fencing token {}",
                context.itemParameter(),
                context.item(),
                context.shardingTotalCount(),
                context.epoch(),
                context.instanceId(),
                context.fireTime(),
                context.fencingToken());
        if (!settlementDuration.isZero()) {
            Thread.sleep(settlementDuration.toMillis());
        }
        // Fenced by the fencing token, which grows with every new owner of the item's claim; the epoch only says
        // which assignment the run started under, and a take-over keeps it. A refused write throws
        // FencedOutException: the run is reported fenced out, not failed, and not retried, since the item's new owner
        // settled the region.
        store.settle(context, ordersTotal(context.itemParameter()));
        if (!settlementDuration.isZero()) {
            log.info(
                    "Settled orders of {} (item {}) on instance {}",
                    context.itemParameter(),
                    context.item(),
                    context.instanceId());
        }
    }

    /** A stand-in for the sum of the region's orders, which a real service would query. */
    private static long ordersTotal(String region) {
        return region.length() * 1_000L;
    }
}
