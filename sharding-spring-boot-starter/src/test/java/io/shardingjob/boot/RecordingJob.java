package io.shardingjob.boot;

import io.shardingjob.core.execution.ShardingContext;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/** The example job, fired every second instead of every ten, that remembers what it ran. */
public class RecordingJob {

    public static final String NAME = "orderSync";

    private final List<ShardingContext> executions = new CopyOnWriteArrayList<>();

    private final Set<String> threads = ConcurrentHashMap.newKeySet();

    @ShardedJob(
            name = NAME,
            cron = "* * * * * *",
            shardingTotalCount = 4,
            shardingItemParameters = "0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen",
            failover = true)
    void sync(ShardingContext context) {
        executions.add(context);
        threads.add(Thread.currentThread().getName());
    }

    public List<ShardingContext> executions() {
        return executions;
    }

    public Set<Integer> executedItems() {
        return executions.stream().map(ShardingContext::item).collect(Collectors.toSet());
    }

    public Set<String> threads() {
        return threads;
    }
}
