package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.jobs.RunningJobs;
import io.shardingjob.boot.jobs.ShardedJobExecutors;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The jobs of an application context are entries of one timer: however many start, the scheduler holds one task of
 * theirs, and every job still fires and is listed with its next fire.
 */
class OneTimerForAllJobsTests {

    private static final int JOBS = 12;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withUserConfiguration(FiresConfiguration.class)
            .withPropertyValues(TestZooKeeper.properties("one-timer-test"));

    @Test
    void manyJobsFireEverySecondFromOneTaskOfTheScheduler() {
        runner.run(context -> {
            ShardedJobLifecycle lifecycle = context.getBean(ShardedJobLifecycle.class);
            Method method = EverySecond.class.getDeclaredMethod("run");
            EverySecond bean = new EverySecond();
            lifecycle.added(IntStream.range(0, JOBS)
                    .mapToObj(i -> ShardedJobMethod.of(
                            "every-second-" + i, "everySecond", bean, method, method.getAnnotation(ShardedJob.class)))
                    .toList());
            Fires fires = context.getBean(Fires.class);

            await().atMost(Duration.ofSeconds(30)).until(() -> fires.jobsFiredTwice() == JOBS);

            ScheduledThreadPoolExecutor scheduler = (ScheduledThreadPoolExecutor) ((ThreadPoolTaskScheduler)
                            context.getBean(ShardedJobExecutors.class).scheduler())
                    .getScheduledExecutor();
            // The timer's wake-up and the lifecycle's periodic look at schedule changes; not one task per job.
            assertThat(scheduler.getQueue()).hasSizeLessThanOrEqualTo(2);
            assertThat(context.getBean(RunningJobs.class).getScheduledTasks())
                    .hasSize(JOBS)
                    .allSatisfy(task -> assertThat(task.nextExecution()).isNotNull());
        });
    }

    /** A job of one item that fires every second. */
    static final class EverySecond {

        @ShardedJob(name = "everySecond", cron = "* * * * * *", shardingTotalCount = 1)
        void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class FiresConfiguration {

        @Bean
        Fires fires() {
            return new Fires();
        }
    }

    /** Counts each job's runs. */
    static final class Fires implements ShardedJobListener {

        private final Map<String, LongAdder> runs = new ConcurrentHashMap<>();

        @Override
        public void executed(ExecutionRecord execution) {
            runs.computeIfAbsent(execution.job(), job -> new LongAdder()).increment();
        }

        long jobsFiredTwice() {
            return runs.values().stream().filter(count -> count.sum() >= 2).count();
        }
    }
}
