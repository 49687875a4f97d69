package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Retries, back-offs and timeouts set on the annotation or under {@code sharding.jobs.<name>}. */
class RetriesAndTimeoutsTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("retries-test"));

    @Test
    void readsRetriesBackoffTimeoutAndDynamicShardingFromTheAnnotationAndTheProperties() {
        runner.withBean(FlakyJob.class)
                .withPropertyValues(
                        "sharding.jobs.flaky.retry-backoff=10ms", "sharding.jobs.flaky.dynamic-sharding=true")
                .run(context -> {
                    JobCoordinator job = context.getBean(ShardingOperations.class)
                            .job("flaky")
                            .orElseThrow();
                    assertThat(job.configuration().retries()).isEqualTo(1);
                    assertThat(job.configuration().timeout()).isEqualTo(Duration.ofMillis(300));
                    assertThat(job.configuration().retryBackoff()).isEqualTo(Duration.ofMillis(10));
                    assertThat(job.configuration().dynamicSharding()).isTrue();
                });
    }

    @Test
    void recordsARetryWithItsNumberAndATimeoutAsTimedOut() {
        runner.withBean(FlakyJob.class).run(context -> {
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(operations.recentExecutions("flaky"))
                            .anySatisfy(execution -> {
                                assertThat(execution.outcome()).isEqualTo(Outcome.TIMED_OUT);
                                assertThat(execution.failure()).contains("exceeded its timeout of PT0.3S");
                            })
                            .anySatisfy(execution -> {
                                assertThat(execution.source()).isEqualTo(ExecutionSource.RETRY);
                                assertThat(execution.retry()).isEqualTo(1);
                                assertThat(execution.outcome()).isEqualTo(Outcome.SUCCESS);
                                assertThat(execution.shardingTotalCount()).isEqualTo(1);
                            }));
        });
    }

    /** Hangs on its very first run, so that run times out and its retry succeeds. */
    static class FlakyJob {

        private final AtomicInteger runs = new AtomicInteger();

        @ShardedJob(name = "flaky", cron = "* * * * * *", retries = 1, timeout = "300ms")
        void run(ShardingContext context) throws InterruptedException {
            if (runs.incrementAndGet() == 1) {
                Thread.sleep(Duration.ofMinutes(1).toMillis());
            }
        }
    }
}
