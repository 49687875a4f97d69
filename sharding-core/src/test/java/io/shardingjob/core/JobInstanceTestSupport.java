package io.shardingjob.core;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;

/** Instances that run a given job on their own pool, and every item result of every instance, in finishing order. */
abstract class JobInstanceTestSupport extends ZooKeeperTestSupport {

    /** The cron {@code * * * * * *} as the starter reads it: every whole second. */
    protected static final FireSchedule EVERY_SECOND =
            (configuration, after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1);

    protected final ConcurrentLinkedQueue<ItemResult> results = new ConcurrentLinkedQueue<>();

    private final List<JobCoordinator> coordinators = new ArrayList<>();

    private final List<ExecutorService> pools = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        for (JobCoordinator coordinator : coordinators) {
            try {
                coordinator.close();
            } catch (RuntimeException ignored) {
                // A crashed instance cannot leave cleanly.
            }
        }
        pools.forEach(ExecutorService::shutdownNow);
    }

    protected Instance start(String id, JobConfiguration configuration, ItemExecutor job) throws InterruptedException {
        return start(id, configuration, job, builder -> builder);
    }

    protected Instance start(
            String id, JobConfiguration configuration, ItemExecutor job, UnaryOperator<JobCoordinatorBuilder> more)
            throws InterruptedException {
        return start(id, configuration, job, more, SESSION_TIMEOUT);
    }

    protected Instance start(
            String id,
            JobConfiguration configuration,
            ItemExecutor job,
            UnaryOperator<JobCoordinatorBuilder> more,
            Duration sessionTimeout)
            throws InterruptedException {
        CuratorFramework client = newClient(sessionTimeout);
        ExecutorService pool = Executors.newCachedThreadPool();
        JobCoordinator coordinator = more.apply(JobCoordinator.builder(client, configuration)
                        .instanceId(id)
                        .reconcileInterval(Duration.ofMillis(300))
                        .shardingWaitTimeout(Duration.ofSeconds(5))
                        .shutdownGracePeriod(Duration.ofMillis(500))
                        .job(job, pool)
                        .listener(results::add))
                .build();
        coordinators.add(coordinator);
        pools.add(pool);
        coordinator.start();
        return new Instance(client, coordinator);
    }

    protected List<ItemResult> results(Predicate<ItemResult> filter) {
        return results.stream().filter(filter).toList();
    }

    /** Whether every instance sees the same settled assignment of this total. */
    protected static boolean settledAt(int total, List<Instance> instances) {
        Assignment first = instances.get(0).coordinator().assignment();
        return first.shardingTotalCount() == total
                && first.itemsByInstance().size() == instances.size()
                && instances.stream()
                        .map(Instance::coordinator)
                        .allMatch(coordinator -> !coordinator.isReshardPending()
                                && coordinator.assignment().equals(first));
    }
}
