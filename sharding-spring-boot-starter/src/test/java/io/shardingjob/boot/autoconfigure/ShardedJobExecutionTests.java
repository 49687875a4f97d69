package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ShardingContext;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.registry.RegistryCenter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** How the methods run: through proxies, in parallel on a bounded pool, failing safely, and stopping gracefully. */
class ShardedJobExecutionTests {

    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("execution-test"));

    @Test
    void callsTheJobMethodsOfAProxiedBeanThroughTheProxy() {
        runner.withUserConfiguration(ProxiedJobConfiguration.class).run(context -> {
            Object bean = context.getBean("recordingJob");
            assertThat(AopUtils.isCglibProxy(bean)).isTrue();
            ProxiedJobConfiguration configuration = context.getBean(ProxiedJobConfiguration.class);
            await().atMost(PATIENCE)
                    .untilAsserted(
                            () -> assertThat(configuration.intercepted.get()).isGreaterThanOrEqualTo(4));
            assertThat(((RecordingJob) bean).executedItems()).isNotEmpty();
        });
    }

    @Test
    void recordsAFailingItemAsFailedAndKeepsFiring() {
        runner.withBean(FailingJob.class).run(context -> {
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            FailingJob job = context.getBean(FailingJob.class);
            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(operations.recentExecutions("failing"))
                        .anySatisfy(execution -> {
                            assertThat(execution.item()).isEqualTo(1);
                            assertThat(execution.outcome()).isEqualTo(Outcome.FAILED);
                            assertThat(execution.failure()).contains("Shanghai is closed");
                        })
                        .anySatisfy(execution -> assertThat(execution.outcome()).isEqualTo(Outcome.SUCCESS));
                assertThat(job.failures.get()).isGreaterThanOrEqualTo(2);
            });
        });
    }

    @Test
    void runsAJobMethodWithoutParameters() {
        runner.withBean(ParameterlessJob.class).run(context -> {
            ParameterlessJob job = context.getBean(ParameterlessJob.class);
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(job.runs.get()).isPositive());
        });
    }

    @Test
    void runsTheItemsOfAFireInParallelButNeverMoreThanThePoolSize() {
        runner.withPropertyValues("sharding.execution.pool-size=2")
                .withBean(ConcurrencyJob.class)
                .run(context -> {
                    ConcurrencyJob job = context.getBean(ConcurrencyJob.class);
                    await().atMost(PATIENCE)
                            .untilAsserted(() -> assertThat(job.finished.get()).isGreaterThanOrEqualTo(4));
                    assertThat(job.mostAtOnce.get()).isEqualTo(2);
                });
    }

    @Test
    void letsRunningItemsFinishBeforeLeavingOnShutdown() throws Exception {
        SlowJob job = new SlowJob(Duration.ofMillis(300));
        runner.withBean(SlowJob.class, () -> job).run(context -> {
            assertThat(job.started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
            assertThat(job.completed.get()).as("the item ran to its end").isTrue();
            assertThat(job.interrupted.get()).isFalse();
        });
    }

    @Test
    void leavesAfterTheGracePeriodWhenItemsKeepRunning() throws Exception {
        SlowJob job = new SlowJob(Duration.ofSeconds(30));
        runner.withPropertyValues("sharding.shutdown.grace-period=200ms")
                .withBean(SlowJob.class, () -> job)
                .run(context -> {
                    assertThat(job.started.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                            .isTrue();
                    long before = System.nanoTime();
                    ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
                    assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(10));
                    await().atMost(PATIENCE).untilTrue(job.interrupted);
                    assertThat(job.completed.get()).isFalse();
                });
    }

    @Test
    void followsACronChangedInZooKeeperWithoutARestart() {
        runner.withBean(YearlyJob.class).run(context -> {
            JobCoordinator coordinator =
                    context.getBean(ShardingOperations.class).job("yearly").orElseThrow();
            await().atMost(PATIENCE).until(() -> coordinator.assignment().epoch() > 0);
            byte[] everySecond = JobConfigurationCodec.encode(
                    coordinator.configuration().toBuilder().cron("* * * * * *").build());
            context.getBean(RegistryCenter.class)
                    .client()
                    .setData()
                    .forPath(new JobNodes("yearly").config(), everySecond);
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(
                                    context.getBean(YearlyJob.class).runs.get())
                            .isGreaterThanOrEqualTo(2));
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ProxiedJobConfiguration {

        final AtomicInteger intercepted = new AtomicInteger();

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }

        @Bean
        static BeanPostProcessor countingProxies(ProxiedJobConfiguration configuration) {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) {
                    if (!(bean instanceof RecordingJob)) {
                        return bean;
                    }
                    ProxyFactory proxy = new ProxyFactory(bean);
                    proxy.setProxyTargetClass(true);
                    proxy.addAdvice((MethodInterceptor) invocation -> {
                        if (invocation.getMethod().getName().equals("sync")) {
                            configuration.intercepted.incrementAndGet();
                        }
                        return invocation.proceed();
                    });
                    return proxy.getProxy();
                }
            };
        }
    }

    static class FailingJob {

        final AtomicInteger failures = new AtomicInteger();

        @ShardedJob(
                name = "failing",
                cron = "* * * * * *",
                shardingTotalCount = 2,
                shardingItemParameters = "0=Beijing,1=Shanghai")
        void settle(ShardingContext context) {
            if (context.item() == 1) {
                failures.incrementAndGet();
                throw new IllegalStateException(context.itemParameter() + " is closed");
            }
        }
    }

    static class ParameterlessJob {

        final AtomicInteger runs = new AtomicInteger();

        @ShardedJob(name = "parameterless", cron = "* * * * * *")
        void cleanUp() {
            runs.incrementAndGet();
        }
    }

    static class ConcurrencyJob {

        final AtomicInteger running = new AtomicInteger();

        final AtomicInteger mostAtOnce = new AtomicInteger();

        final AtomicInteger finished = new AtomicInteger();

        final CountDownLatch twoStarted = new CountDownLatch(2);

        @ShardedJob(name = "concurrency", cron = "* * * * * *", shardingTotalCount = 4)
        void run(ShardingContext context) throws InterruptedException {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            twoStarted.countDown();
            // Hold the first two items until both run, which they can only do in parallel.
            twoStarted.await(5, TimeUnit.SECONDS);
            running.decrementAndGet();
            finished.incrementAndGet();
        }
    }

    static class SlowJob {

        final Duration work;

        final CountDownLatch started = new CountDownLatch(1);

        final AtomicBoolean completed = new AtomicBoolean();

        final AtomicBoolean interrupted = new AtomicBoolean();

        SlowJob(Duration work) {
            this.work = work;
        }

        @ShardedJob(name = "slow", cron = "* * * * * *")
        void work() {
            started.countDown();
            try {
                // Stands for the job's own work, which takes a while.
                Thread.sleep(work.toMillis());
                completed.set(true);
            } catch (InterruptedException ex) {
                interrupted.set(true);
            }
        }
    }

    static class YearlyJob {

        final AtomicInteger runs = new AtomicInteger();

        @ShardedJob(name = "yearly", cron = "0 0 0 1 1 *")
        void run() {
            runs.incrementAndGet();
        }
    }
}
