package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sharding.zookeeper.embedded.port=0", "sharding.jobs.orderSettlement.cron=* * * * * *"})
class SampleApplicationTests {

    @Autowired
    private ShardingOperations operations;

    @Autowired
    private ShardedJobRegistry registry;

    @Test
    void runsItsDeclaredJobsAndTheOneItDefinesAtRunTimeOnItsEmbeddedZooKeeper() {
        assertThat(operations.jobs()).extracting(job -> job.jobName()).startsWith("orderSettlement", "warehouseStock");
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(registry.definedJobs()).containsExactly(ReportExport.JOB));
        assertThat(operations
                        .job(ReportExport.JOB)
                        .orElseThrow()
                        .configuration()
                        .cron())
                .isEqualTo("0/20 * * * * *");
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            assertThat(operations
                            .job("warehouseStock")
                            .orElseThrow()
                            .configuration()
                            .strategy())
                    .isEqualTo("sticky");
            assertThat(operations.recentExecutions("orderSettlement"))
                    .extracting(execution -> execution.parameter())
                    .contains("Beijing", "Shanghai", "Guangzhou", "Shenzhen");
        });
    }
}
