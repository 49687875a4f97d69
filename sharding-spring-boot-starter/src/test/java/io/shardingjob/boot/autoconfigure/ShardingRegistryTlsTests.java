package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.TestCertificates;
import io.shardingjob.core.testing.ZooKeeperServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sharding.zookeeper.ssl.bundle} against a real ZooKeeper server in its own JVM that serves TLS only and asks
 * for the client's certificate; the key material is made at test time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShardingRegistryTlsTests {

    private final ProcessGroup processes = new ProcessGroup();

    private TestCertificates certificates;

    private ZooKeeperServers.Server server;

    private ApplicationContextRunner runner;

    @BeforeAll
    void startASecureServer() {
        certificates = TestCertificates.make(ProcessGroup.workDirectory("starter-tls/certificates"));
        server = ZooKeeperServers.secure(processes, "starter-tls/zookeeper", certificates);
        runner = new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(SslAutoConfiguration.class, ShardingRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "sharding.zookeeper.namespace=tls-test",
                        "sharding.zookeeper.connect-string=" + server.address(),
                        "sharding.zookeeper.connection-timeout=3s")
                .withPropertyValues(TestCertificates.bundleProperties(
                        "zookeeper", certificates.keys("client"), certificates.trust("client")));
    }

    @AfterAll
    void stopIt() {
        processes.close();
    }

    @Test
    void connectsOverTlsWithTheSslBundleItNames() {
        runner.withPropertyValues("sharding.zookeeper.ssl.bundle=zookeeper").run(context -> {
            RegistryCenter registry = context.getBean(RegistryCenter.class);
            registry.client().create().forPath("/probe");

            assertThat(registry.isConnected()).isTrue();
            assertThat(registry.client().checkExists().forPath("/probe")).isNotNull();
        });
    }

    @Test
    void withoutABundleTheRegistryFailsToConnectToASecurePortNamingTheConnectString() {
        runner.run(context -> {
            Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

            assertThat(failure).rootCause().isInstanceOf(RegistryUnavailableException.class);
            assertThat(failure).rootCause().hasMessageContaining(server.address());
        });
    }

    @Test
    void aBundleThatDoesNotExistFailsNamingTheProperty() {
        runner.withPropertyValues("sharding.zookeeper.ssl.bundle=missing").run(context -> {
            Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

            assertThat(failure)
                    .rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("sharding.zookeeper.ssl.bundle")
                    .hasMessageContaining("spring.ssl.bundle.jks.missing");
        });
    }
}
