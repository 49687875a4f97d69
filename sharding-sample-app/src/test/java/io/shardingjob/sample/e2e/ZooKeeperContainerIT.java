package io.shardingjob.sample.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.sample.SampleApplication;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The sample application against the official ZooKeeper image, for contributors with Docker. Where no Docker engine
 * answers (CI has none) JUnit reports it skipped: "disabledWithoutDocker is true and Docker is not available". The
 * other end-to-end tests do not need Docker. {@code @ServiceConnection} tells the jobs where the container listens, as
 * it would in an application's own tests: Spring Boot names the connection after the image, {@code zookeeper}, and
 * the sample's embedded ZooKeeper then does not start.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(
        classes = SampleApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sharding.jobs.orderSettlement.cron=* * * * * *")
class ZooKeeperContainerIT {

    @Container
    @ServiceConnection
    static final GenericContainer<?> zooKeeper =
            new GenericContainer<>("zookeeper:3.9").withExposedPorts(2181).waitingFor(Wait.forListeningPort());

    @Autowired
    private ShardingOperations operations;

    @Test
    void runsEveryRegionAgainstTheOfficialZooKeeperImage() {
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(operations.recentExecutions("orderSettlement"))
                        .extracting(ExecutionRecord::parameter)
                        .contains("Beijing", "Shanghai", "Guangzhou", "Shenzhen"));
    }
}
