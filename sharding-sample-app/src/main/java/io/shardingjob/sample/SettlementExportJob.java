package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Exports each region's settlement as soon as that region is settled: a job that follows {@code orderSettlement} item
 * by item, with no schedule of its own. Guangzhou's export runs once Guangzhou's settlement of the same fire succeeded,
 * while the other regions may still settle; a region whose settlement failed is not exported for that fire. Every run
 * gets the settlement fire's time as its own, so the two jobs' runs of one fire share one key.
 *
 * <p>{@code sample.settlement-export.enabled=false} leaves it out (the fault drills do, to judge one job alone).
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.settlement-export.enabled", matchIfMissing = true)
class SettlementExportJob {

    static final String JOB = "settlementExport";

    private static final Logger log = LoggerFactory.getLogger(SettlementExportJob.class);

    @ShardedJob(
            name = JOB,
            after = "orderSettlement",
            itemWise = true,
            shardingTotalCount = 4,
            shardingItemParameters = "0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen",
            description = "Exports each region's settlement as soon as it succeeded")
    void export(ShardingContext context) {
        log.info(
                "Exporting the settlement of {} (item {}) on instance {} for the fire of {}",
                context.itemParameter(),
                context.item(),
                context.instanceId(),
                context.fireTime());
    }
}
