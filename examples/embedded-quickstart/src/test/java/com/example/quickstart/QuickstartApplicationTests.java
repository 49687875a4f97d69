package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The project has the starter and nothing else; with the embedded ZooKeeper enabled, the application starts and its job
 * fires. A starter that left out what ZooKeeper's server needs fails this test at start-up.
 */
@SpringBootTest(properties = "sharding.zookeeper.embedded.port=0")
class QuickstartApplicationTests {

    @Autowired
    GreetingJob job;

    @Test
    void theJobFiresOnTheEmbeddedZooKeeperWithNothingButTheStarter() {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(job.greeted()).containsExactlyInAnyOrder("north", "south", "east"));
    }
}
