package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
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
        assertThat(operations.jobs())
                .extracting(job -> job.jobName())
                .contains("orderSettlement", "warehouseStock", SettlementExportJob.JOB);
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

    @Test
    void exportsEachRegionAfterItsSettlementOfTheSameFire() {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            List<ExecutionRecord> exports = operations.recentExecutions(SettlementExportJob.JOB);
            assertThat(exports)
                    .extracting(ExecutionRecord::parameter)
                    .contains("Beijing", "Shanghai", "Guangzhou", "Shenzhen");
            Set<Instant> settled = operations.recentExecutions("orderSettlement").stream()
                    .map(ExecutionRecord::fireTime)
                    .collect(Collectors.toSet());
            assertThat(exports).allSatisfy(export -> {
                assertThat(export.source()).isEqualTo(ExecutionSource.UPSTREAM);
                assertThat(settled).contains(export.fireTime());
            });
        });
    }
}
