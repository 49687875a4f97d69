package io.shardingjob.core.benchmark;

import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.ShardedJobs;
import io.shardingjob.core.config.JobConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;

/**
 * Many jobs of one item on one client and one instance, {@value #INSTANCE}, that never fire on their own: what the
 * benchmarks of starting and standing by many jobs measure.
 */
final class SoloJobs {

    static final String INSTANCE = "solo";

    private SoloJobs() {}

    /** {@code count} jobs, {@code job-0} on, built but not started. */
    static ShardedJobs of(
            CuratorFramework client, int count, ScheduledExecutorService coordination, ExecutorService items) {
        ShardedJobs jobs = new ShardedJobs();
        for (int i = 0; i < count; i++) {
            jobs.add(JobCoordinator.builder(
                            client,
                            JobConfiguration.builder("job-" + i)
                                    .cron("0 0 0 1 1 ?")
                                    .shardingTotalCount(1)
                                    .build())
                    .instanceId(INSTANCE)
                    .scheduler(coordination)
                    .startTimeout(Duration.ofSeconds(120))
                    .job(context -> {}, items)
                    .build());
        }
        return jobs;
    }

    /**
     * Until every job matches, scanned from the first not yet seen matching, every 20 ms (every 5 ms, the polling
     * thread took a tenth of the benchmark's CPU on two cores, the CPU what it times needs).
     */
    static void awaitEvery(List<JobCoordinator> jobs, Predicate<JobCoordinator> condition, Duration atMost) {
        int[] next = {0};
        await().atMost(atMost).pollInterval(Duration.ofMillis(20)).until(() -> {
            while (next[0] < jobs.size()) {
                if (!condition.test(jobs.get(next[0]))) {
                    return false;
                }
                next[0]++;
            }
            return true;
        });
    }
}
