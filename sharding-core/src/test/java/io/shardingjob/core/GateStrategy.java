package io.shardingjob.core;

import io.shardingjob.core.sharding.strategy.ShardingRequest;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import io.shardingjob.core.sharding.strategy.ShardingStrategy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Average allocation that can be held shut while a given instance takes part, to keep a leader in the middle of a
 * reshard for as long as a test needs.
 */
final class GateStrategy implements ShardingStrategy {

    private final String blockedWhilePresent;

    private final AtomicBoolean closed = new AtomicBoolean();

    private final CountDownLatch released = new CountDownLatch(1);

    private final AtomicInteger calls = new AtomicInteger();

    private volatile boolean blockedCaller;

    GateStrategy(String blockedWhilePresent) {
        this.blockedWhilePresent = blockedWhilePresent;
    }

    @Override
    public String name() {
        return "gate";
    }

    @Override
    public Map<String, List<Integer>> shard(ShardingRequest request) {
        calls.incrementAndGet();
        if (closed.get() && request.instances().contains(blockedWhilePresent)) {
            blockedCaller = true;
            try {
                released.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        return ShardingStrategies.builtIns().get(ShardingStrategies.DEFAULT).shard(request);
    }

    void close() {
        closed.set(true);
    }

    void open() {
        closed.set(false);
        released.countDown();
    }

    boolean hasBlockedCaller() {
        return blockedCaller;
    }

    int calls() {
        return calls.get();
    }
}
