package com.example.quickstart;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Greets one region per item; remembers whom it greeted, so that a test can tell it ran. */
@Component
public class GreetingJob {

    private static final Logger log = LoggerFactory.getLogger(GreetingJob.class);

    private final Set<String> greeted = ConcurrentHashMap.newKeySet();

    @ShardedJob(
            name = "greeting",
            cron = "*/5 * * * * *",
            shardingTotalCount = 3,
            shardingItemParameters = "0=north,1=south,2=east")
    public void greet(ShardingContext context) {
        log.info("Hello, {} (item {} of the fire of {})", context.itemParameter(), context.item(), context.fireTime());
        greeted.add(context.itemParameter());
    }

    public Set<String> greeted() {
        return Set.copyOf(greeted);
    }
}
