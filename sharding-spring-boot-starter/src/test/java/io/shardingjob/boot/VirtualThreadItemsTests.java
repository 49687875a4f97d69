package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ShardingContext;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Boot's {@code spring.threads.virtual.enabled} runs items on virtual threads, {@code sharding.execution.pool-size}
 * then a limit of concurrent runs: against a real ZooKeeper, with jobs added while the service runs. Virtual threads
 * exist from Java 21: on the Java 17 build (CI's) this test is skipped.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadItemsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static final int POOL_SIZE = 2;

    private static final int MORE_JOBS = 10;

    /** What bounds the starter's pools that grow with load: the machine's processors, at least two. */
    private static final long MACHINE_BOUND = Math.max(2, Runtime.getRuntime().availableProcessors());

    private ConfigurableApplicationContext context;

    private final AtomicInteger runningNow = new AtomicInteger();

    private final AtomicInteger mostAtOnce = new AtomicInteger();

    /** Each job's items that ran, and whether any ran on a platform thread. */
    private final Map<String, Set<Integer>> ran = new ConcurrentHashMap<>();

    private final Set<String> platformRunners = ConcurrentHashMap.newKeySet();

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void runsItemsOnVirtualThreadsAtMostPoolSizeAtOnceWithPlatformThreadsConstantInTheNumberOfJobs() {
        context = new SpringApplicationBuilder(Service.class)
                .web(WebApplicationType.NONE)
                .properties(TestZooKeeper.properties(TestZooKeeper.newNamespace(), "virtual"))
                .properties(
                        "spring.threads.virtual.enabled=true",
                        "sharding.execution.pool-size=" + POOL_SIZE,
                        "sharding.execution.max-concurrent-fires=1")
                .run();
        ShardedJobRegistry registry = context.getBean(ShardedJobRegistry.class);
        // Items that work a while, so that the eight of a fire contend for the two slots.
        registry.registerHandler("busy", item -> run(item, 50));
        registry.registerHandler("quick", item -> run(item, 0));
        registry.define(everySecond("busy", 8), "busy");
        await().atMost(PATIENCE).until(() -> ranEveryItem("busy", 8));
        Map<String, Long> shardingThreadsWithOneJob = platformThreadsPerPool("sharding-");
        int platformThreadsWithOneJob = platformThreadCount();

        for (int job = 0; job < MORE_JOBS; job++) {
            registry.define(everySecond("quick-" + job, 4), "quick");
        }
        await().atMost(PATIENCE)
                .until(() -> ran.keySet().stream()
                                .filter(job -> job.startsWith("quick-") && ranEveryItem(job, 4))
                                .count()
                        == MORE_JOBS);

        assertThat(mostAtOnce.get()).as("runs at once, all jobs together").isEqualTo(POOL_SIZE);
        assertThat(platformRunners).as("items that ran on a platform thread").isEmpty();
        Map<String, Long> shardingThreads = platformThreadsPerPool("sharding-");
        assertThat(shardingThreads.keySet())
                .as("the starter's platform thread pools, with 1 job and with %d", 1 + MORE_JOBS)
                .isEqualTo(shardingThreadsWithOneJob.keySet())
                .doesNotContain("sharding-item", "sharding-fire");
        // A pool starts its threads as load comes, up to a bound that is the machine's, never the number of jobs':
        // the shared hand-off pool may have started a second thread for eleven jobs, not an eleventh.
        shardingThreads.forEach((pool, threads) -> assertThat(threads)
                .as("threads of %s with %d jobs (%d with 1)", pool, 1 + MORE_JOBS, shardingThreadsWithOneJob.get(pool))
                .isLessThanOrEqualTo(Math.max(shardingThreadsWithOneJob.get(pool), MACHINE_BOUND)));
        // Virtual threads are not counted here; the carriers that run them, at most one per processor, may have
        // started meanwhile.
        assertThat(platformThreadCount())
                .as("live platform threads with 1 job were %d", platformThreadsWithOneJob)
                .isLessThanOrEqualTo(
                        platformThreadsWithOneJob + Runtime.getRuntime().availableProcessors());
    }

    private void run(ShardingContext item, long workMillis) {
        mostAtOnce.accumulateAndGet(runningNow.incrementAndGet(), Math::max);
        try {
            if (!isVirtual(Thread.currentThread())) {
                platformRunners.add(Thread.currentThread().getName());
            }
            if (workMillis > 0) {
                Thread.sleep(workMillis);
            }
            ran.computeIfAbsent(item.jobName(), job -> ConcurrentHashMap.newKeySet())
                    .add(item.item());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } finally {
            runningNow.decrementAndGet();
        }
    }

    private boolean ranEveryItem(String job, int items) {
        return ran.getOrDefault(job, Set.of()).size() == items;
    }

    private static JobConfiguration everySecond(String name, int items) {
        return JobConfiguration.builder(name)
                .cron("* * * * * *")
                .shardingTotalCount(items)
                .build();
    }

    /** Live platform threads whose names begin with {@code prefix}, counted by pool: their name less its number. */
    private static Map<String, Long> platformThreadsPerPool(String prefix) {
        // Thread.getAllStackTraces lists platform threads only.
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .collect(Collectors.groupingBy(
                        name -> name.replaceFirst("-\\d+$", ""), TreeMap::new, Collectors.counting()));
    }

    private static int platformThreadCount() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    private static boolean isVirtual(Thread thread) {
        try {
            // Thread.isVirtual is Java 21 API, and the project compiles for 17.
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {}
}
