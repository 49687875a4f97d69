package io.shardingjob.sample;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Counts the stock of six warehouses with the {@code sticky} strategy: when an instance joins or leaves, only the
 * fewest warehouses move, so that the ones whose caches are warm stay where they are. Its cron and strategy are set in
 * application.yml, which overrides the annotation.
 */
@Component
class WarehouseStockJob {

    private static final Logger log = LoggerFactory.getLogger(WarehouseStockJob.class);

    @ShardedJob(
            name = "warehouseStock",
            shardingTotalCount = 6,
            shardingItemParameters = "0=Tianjin,1=Wuhan,2=Chengdu,3=Xian,4=Hangzhou,5=Shenyang")
    void count(ShardingContext context) {
        log.info(
                "Counting stock in the {} warehouse (item {} of {}, epoch {}) on instance {}",
                context.itemParameter(),
                context.item(),
                context.shardingTotalCount(),
                context.epoch(),
                context.instanceId());
    }
}
