package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;

/**
 * An instance whose cache has not caught up with a reshard plans a fire under the assignment before it. With failover
 * on, the claims a fire creates carry their starts, and a run whose start was written with its claim begins with no
 * other write: so the create itself must be refused once a newer assignment was written, or the stale instance begins
 * the item's next fire while its new owner still runs the fire before (busy, the owner claims nothing of the next fire
 * and sees no existing claim).
 */
class StaleAssignmentTest extends JobInstanceTestSupport {

    private static final String JOB = "stale-view";

    private static final JobConfiguration ONE_ITEM = JobConfiguration.builder(JOB)
            .cron("0 0 0 1 1 ?")
            .shardingTotalCount(1)
            .failover(true)
            .build();

    private final CountDownLatch release = new CountDownLatch(1);

    /** The fire whose run waits for {@link #release}. */
    private final AtomicReference<Instant> held = new AtomicReference<>(Instant.MAX);

    private final Map<Integer, AtomicInteger> running = new ConcurrentHashMap<>();

    private final List<String> overlaps = new CopyOnWriteArrayList<>();

    private final ItemExecutor job = context -> {
        AtomicInteger item = running.computeIfAbsent(context.item(), any -> new AtomicInteger());
        try {
            if (item.incrementAndGet() > 1) {
                overlaps.add(context.instanceId() + " ran item " + context.item() + " of the fire at "
                        + context.fireTime() + " beside another run of it");
            }
            if (context.fireTime().equals(held.get())) {
                release.await(30, TimeUnit.SECONDS);
            }
        } finally {
            item.decrementAndGet();
        }
    };

    @Test
    void anInstanceWhoseCacheMissedAReshardNeverBeginsTheNextFireOfAnItemItsNewOwnerStillRuns() throws Exception {
        // No periodic audit (only those the fires and the ends ask for), and sessions long enough that a start written
        // with its claim is vouched for: the order is the test's.
        Instance a = start("a", ONE_ITEM, job, builder -> builder.reconcileInterval(Duration.ofMinutes(5)), LONG);
        Instance b = start("b", ONE_ITEM, job, builder -> builder.reconcileInterval(Duration.ofMinutes(5)), LONG);
        await().until(() -> settledAt(1, List.of(a, b)));
        // A fire waits for the audit of the assignment it runs under: after this one, both have audited it.
        Instant warmUp = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        a.coordinator().fire(ExecutionSource.NORMAL, warmUp);
        b.coordinator().fire(ExecutionSource.NORMAL, warmUp);
        Assignment before = a.coordinator().assignment();
        Instance stale = before.itemsOf("a").contains(0) ? a : b;
        Instance owner = stale == a ? b : a;

        // The stale instance hears of nothing more, as if the news were still on their way; a reshard moves the item.
        blind(stale);
        Assignment after = new Assignment(before.epoch() + 1, 1, Map.of(stale.id(), List.of(), owner.id(), List.of(0)));
        newClient().setData().forPath(new JobNodes(JOB).assignment(), after.encode());
        await().until(() -> owner.coordinator().assignment().equals(after));

        Instant fire = warmUp.plusMillis(1);
        Instant next = fire.plusMillis(1);
        held.set(fire);
        CompletableFuture<FireReport> ownersRun = owner.coordinator().fireAsync(ExecutionSource.NORMAL, fire);
        await().until(() -> running.containsKey(0) && running.get(0).get() == 1);
        // Its next fire finds the item busy: it claims nothing of it, and makes the fire up once the item is free.
        owner.coordinator().fire(ExecutionSource.NORMAL, next);
        stale.coordinator().fire(ExecutionSource.NORMAL, next);

        assertThat(stale.coordinator().assignment())
                .as("the stale instance's view")
                .isEqualTo(before);
        assertThat(overlaps).as("runs of one item at the same time").isEmpty();
        release.countDown();
        assertThat(ownersRun.get(30, TimeUnit.SECONDS).results()).hasSize(1);
        assertThat(results(result -> result.fireTime().equals(next)
                        && result.context().instanceId().equals(stale.id())))
                .as("runs of the next fire by the stale instance")
                .isEmpty();
        // The blinded cache never hears of the reshard, which ZooKeeper does not allow: a watch's event reaches a
        // client
        // before the data it announces, so a cache lags at most one read behind the instance's own read of the new
        // assignment (its refused start's). Blind for good, the stale instance keeps taking the handed-on claim over
        // and handing it on again; it leaves, as a lag that ended would let it.
        stale.coordinator().close();
        // The item's run of the next fire is its owner's, once the run before it ended.
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(
                        () -> assertThat(results(result -> result.fireTime().equals(next)))
                                .extracting(result -> result.context().instanceId())
                                .containsExactly(owner.id()));
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> results(result -> result.fireTime().equals(next)).size() == 1);
        assertThat(results(result -> result.fireTime().equals(next))).allMatch(ItemResult::succeeded);
        assertThat(overlaps).as("runs of one item at the same time").isEmpty();
    }

    private static final Duration LONG = Duration.ofSeconds(30);

    /** Removes the watch of the instance's cache from the server: the cache is told no change any more. */
    private static void blind(Instance instance) throws Exception {
        instance.client()
                .getZookeeperClient()
                .getZooKeeper()
                .removeAllWatches("/" + NAMESPACE + new JobNodes(JOB).cached(), Watcher.WatcherType.Any, false);
    }
}
