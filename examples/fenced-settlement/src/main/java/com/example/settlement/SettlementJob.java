package com.example.settlement;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.core.execution.ShardingContext;
import java.util.Map;
import org.springframework.stereotype.Component;

/**
 * Settles one region per item, writing its total through {@link FencedJdbc}: once the item's next owner wrote the
 * region, a run taken over while its process was paused changes nothing, and ends fenced out.
 */
@Component
public class SettlementJob {

    private final RegionTotals totals;
    private final FencedJdbc fenced;

    public SettlementJob(RegionTotals totals, FencedJdbc fenced) {
        this.totals = totals;
        this.fenced = fenced;
    }

    @ShardedJob(
            name = "settlement",
            cron = "0 0 2 * * *",
            shardingTotalCount = 4,
            shardingItemParameters = "0=north,1=south,2=east,3=west",
            failover = true)
    public void settle(ShardingContext context) {
        String region = context.itemParameter();
        long total = totals.totalOf(region);
        fenced.update(
                context,
                "settlement",
                "total = :total, settled_by = :instance",
                "region = :region",
                Map.of("total", total, "instance", context.instanceId(), "region", region));
    }
}
