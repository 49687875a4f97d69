package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
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
 */
@Component
class OrderSettlementJob {

    private static final Logger log = LoggerFactory.getLogger(OrderSettlementJob.class);

    private final Duration settlementDuration;

    OrderSettlementJob(@Value("${sample.settlement-duration:0s}") Duration settlementDuration) {
        this.settlementDuration = settlementDuration;
    }

    @ShardedJob(
            name = "orderSettlement",
            cron = "0/5 * * * * *",
            shardingTotalCount = 4,
            shardingItemParameters = "0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen",
            failover = true,
            description = "Settles the day's orders, one region per item")
    void settle(ShardingContext context) throws InterruptedException {
        // A real job would fence its writes with the epoch: ... WHERE region = :region AND fence <= :epoch
        log.info(
                "Settling orders of {} (item {} of {}, epoch {}) on instance {} for the fire of {}",
                context.itemParameter(),
                context.item(),
                context.shardingTotalCount(),
                context.epoch(),
                context.instanceId(),
                LocalTime.now().truncatedTo(ChronoUnit.SECONDS));
        if (!settlementDuration.isZero()) {
            Thread.sleep(settlementDuration.toMillis());
            log.info(
                    "Settled orders of {} (item {}) on instance {}",
                    context.itemParameter(),
                    context.item(),
                    context.instanceId());
        }
    }
}
