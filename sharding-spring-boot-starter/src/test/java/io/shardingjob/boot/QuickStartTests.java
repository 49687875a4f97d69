package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** The README's quick start, word for word: the annotated method and the one property. */
class QuickStartTests {

    @Test
    void runsTheQuickStartAsWritten() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(QuickStart.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "sharding.zookeeper.connect-string=" + TestZooKeeper.connectString(),
                        "spring.application.name=" + TestZooKeeper.newNamespace())
                .run()) {
            ShardingOperations operations = context.getBean(ShardingOperations.class);
            JobCoordinator job = operations.job("orderSync").orElseThrow();
            assertThat(job.configuration().cron()).isEqualTo("0/10 * * * * *");
            assertThat(job.configuration().failover()).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(job.localItems()).containsExactly(0, 1, 2, 3));
            // Rather than wait for the next tenth second, fire it the way an operator would (should the scheduled fire
            // be running at this very moment, the trigger is refused and that fire does the same).
            operations.trigger("orderSync");
            OrderSync sync = context.getBean(OrderSync.class);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(sync.regions)
                            .containsOnlyKeys(0, 1, 2, 3)
                            .containsValues("Beijing", "Shanghai", "Guangzhou", "Shenzhen"));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class QuickStart {

        @Bean
        OrderSync orderSync() {
            return new OrderSync();
        }
    }

    static class OrderSync {

        final Map<Integer, String> regions = new ConcurrentHashMap<>();

        @ShardedJob(
                name = "orderSync",
                cron = "0/10 * * * * *",
                shardingTotalCount = 4,
                shardingItemParameters = "0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen",
                failover = true)
        void sync(ShardingContext context) {
            regions.put(context.item(), context.itemParameter());
        }
    }
}
