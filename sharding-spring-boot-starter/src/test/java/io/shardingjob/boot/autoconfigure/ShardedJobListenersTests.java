package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardedJobCompletionListener;
import io.shardingjob.boot.ShardedJobFireListener;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireCompletion;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Fire and completion listeners are ordinary beans, each for the jobs it names. */
class ShardedJobListenersTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("listeners-test"))
            .withUserConfiguration(Listeners.class);

    @Test
    void callsTheListenerBeansOfAJobAroundItsFiresAndOncePerFire() {
        runner.run(context -> {
            Calls calls = context.getBean(Calls.class);
            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(calls.fires).contains("before regions [0, 1]", "after regions [0, 1]");
                assertThat(calls.completions).anySatisfy(completion -> {
                    assertThat(completion.jobName()).isEqualTo("regions");
                    assertThat(completion.items()).containsOnlyKeys(0, 1);
                });
            });
            assertThat(calls.fires).noneMatch(call -> call.contains("other"));
        });
    }

    /** Where the listeners write; injected into them, as any bean can be. */
    static class Calls {

        final ConcurrentLinkedQueue<String> fires = new ConcurrentLinkedQueue<>();

        final ConcurrentLinkedQueue<FireCompletion> completions = new ConcurrentLinkedQueue<>();
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {

        @Bean
        Calls calls() {
            return new Calls();
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        ShardedJobFireListener regionsListener(Calls calls) {
            return new ShardedJobFireListener() {
                @Override
                public Set<String> jobs() {
                    return Set.of("regions");
                }

                @Override
                public void beforeFire(
                        String jobName, Instant fireTime, ExecutionSource source, List<ShardingContext> items) {
                    calls.fires.add("before " + jobName + " "
                            + items.stream().map(ShardingContext::item).toList());
                }

                @Override
                public void afterFire(String jobName, Instant fireTime, ExecutionSource source, FireReport report) {
                    calls.fires.add("after " + jobName + " " + report.items());
                }
            };
        }

        @Bean
        ShardedJobCompletionListener completionListener(Calls calls) {
            return new ShardedJobCompletionListener() {
                @Override
                public Set<String> jobs() {
                    return Set.of("regions");
                }

                @Override
                public void fireCompleted(FireCompletion completion) {
                    calls.completions.add(completion);
                }
            };
        }
    }

    static class Jobs {

        @ShardedJob(name = "regions", cron = "* * * * * *", shardingTotalCount = 2)
        void regions(ShardingContext context) {}

        @ShardedJob(name = "other", cron = "* * * * * *")
        void other(ShardingContext context) {}
    }
}
