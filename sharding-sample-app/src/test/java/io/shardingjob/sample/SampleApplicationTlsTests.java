package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.TestCertificates;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample's {@code tls} profile, with a certificate made at test time as its comments say to make one. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sharding.zookeeper.embedded.port=0", "sharding.jobs.orderSettlement.cron=* * * * * *"})
@ActiveProfiles("tls")
class SampleApplicationTlsTests {

    @DynamicPropertySource
    static void certificate(DynamicPropertyRegistry registry) {
        TestCertificates certificates = TestCertificates.make(ProcessGroup.workDirectory("sample-tls/certificates"));
        registry.add("sample.tls.keystore", () -> certificates.keys("server").toString());
        registry.add("sample.tls.password", () -> TestCertificates.PASSWORD);
    }

    @Autowired
    private ShardingOperations operations;

    @Autowired
    private EmbeddedZooKeeper zooKeeper;

    @Test
    void runsItsJobsOverTlsOnAnEmbeddedZooKeeperThatRefusesPlaintext() {
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(operations.recentExecutions("orderSettlement"))
                        .extracting(execution -> execution.parameter())
                        .contains("Beijing", "Shanghai", "Guangzhou", "Shenzhen"));

        RegistryCenter plaintext =
                new RegistryCenter(RegistryConfiguration.of(zooKeeper.connectString(), "sharding-sample")
                        .withConnectionTimeout(Duration.ofSeconds(2)));
        try (plaintext) {
            assertThatThrownBy(plaintext::start).isInstanceOf(RegistryUnavailableException.class);
        }
    }
}
