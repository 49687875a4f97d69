package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shardingjob.boot.zookeeper.EmbeddedZooKeeper;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.registry.RegistryTls;
import io.shardingjob.core.registry.RegistryUnavailableException;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.common.ClientX509Util;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code sharding.zookeeper.embedded.ssl.bundle}: the embedded server serves TLS only, from a bundle, to the registry of
 * the same application and to clients that have a certificate it trusts; the key material is made at test time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbeddedZooKeeperTlsTests {

    private TestCertificates certificates;

    private ApplicationContextRunner runner;

    @BeforeAll
    void makeCertificates() {
        certificates = TestCertificates.make(ProcessGroup.workDirectory("starter-embedded-tls/certificates"));
        runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class,
                        EmbeddedZooKeeperAutoConfiguration.class,
                        ShardingRegistryAutoConfiguration.class))
                .withPropertyValues(
                        "sharding.zookeeper.namespace=embedded-tls",
                        "sharding.zookeeper.embedded.enabled=true",
                        "sharding.zookeeper.embedded.port=0",
                        "sharding.zookeeper.connection-timeout=3s")
                .withPropertyValues(bundle("server", "server", certificates.trust("server")))
                .withPropertyValues(bundle("client", "client", certificates.trust("client")))
                .withPropertyValues(bundle("stranger", "stranger", certificates.trust("client")))
                .withPropertyValues(bundle("self", "server", certificates.keys("server")))
                .withPropertyValues(bundle("keyonly", "server", null))
                .withPropertyValues(TestCertificates.bundleProperties("keyless", null, certificates.trust("server")))
                .withPropertyValues(TestCertificates.bundleProperties("trusting", null, certificates.trust("client")));
    }

    @Test
    void theRegistryOfTheApplicationConnectsOverTlsWithTheBundleTheServerServes() {
        runner.withPropertyValues("sharding.zookeeper.embedded.ssl.bundle=self").run(context -> {
            RegistryCenter registry = context.getBean(RegistryCenter.class);
            registry.client().create().forPath("/probe");

            assertThat(registry.client().checkExists().forPath("/probe")).isNotNull();
        });
    }

    @Test
    void aClientWithACertificateTheServerTrustsConnectsAndOneWithoutTlsOrWithAnotherCertificateIsRefused() {
        runner.withPropertyValues(
                        "sharding.zookeeper.embedded.ssl.bundle=server", "sharding.zookeeper.ssl.bundle=client")
                .run(context -> {
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    registry.client().create().forPath("/probe");
                    String address = context.getBean(EmbeddedZooKeeper.class).connectString();

                    assertThat(registry.client().checkExists().forPath("/probe"))
                            .isNotNull();
                    assertThat(refused(RegistryConfiguration.of(address, "embedded-tls")))
                            .as("plaintext")
                            .isTrue();
                    assertThat(refused(RegistryConfiguration.of(address, "embedded-tls")
                                    .withTls(RegistryTls.trusting(TestCertificates.load(certificates.trust("client")))
                                            .withKey(
                                                    TestCertificates.load(certificates.keys("stranger")),
                                                    TestCertificates.PASSWORD))))
                            .as("a certificate the server does not trust")
                            .isTrue();
                });
    }

    @Test
    void aServerBundleWithoutATrustStoreAsksClientsForNoCertificate() {
        runner.withPropertyValues(
                        "sharding.zookeeper.embedded.ssl.bundle=keyonly", "sharding.zookeeper.ssl.bundle=trusting")
                .run(context -> {
                    RegistryCenter registry = context.getBean(RegistryCenter.class);
                    registry.client().create().forPath("/probe");

                    assertThat(registry.client().checkExists().forPath("/probe"))
                            .isNotNull();
                });
    }

    @Test
    void aServerBundleWithoutATrustStoreThatTheClientWouldConnectWithFailsNamingTheEmbeddedProperty() {
        runner.withPropertyValues("sharding.zookeeper.embedded.ssl.bundle=keyonly")
                .run(context -> {
                    Throwable failure = catchThrowable(() -> context.getBean(RegistryCenter.class));

                    assertThat(failure)
                            .rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("sharding.zookeeper.embedded.ssl.bundle")
                            .hasMessageContaining("no trust store")
                            .hasMessageContaining("set sharding.zookeeper.ssl.bundle");
                });
    }

    @Test
    void aBundleWithoutAKeyFailsStartUpNamingTheProperty() {
        runner.withPropertyValues("sharding.zookeeper.embedded.ssl.bundle=keyless")
                .run(context -> {
                    Throwable failure = catchThrowable(() -> context.getBean(EmbeddedZooKeeper.class));

                    assertThat(failure)
                            .rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("sharding.zookeeper.embedded.ssl.bundle")
                            .hasMessageContaining("no key store");
                });
    }

    @Test
    void theSystemPropertiesZooKeepersServerReadsAreSetOnlyWhileItRunsAndNameNoPassword() throws Exception {
        List<String> names;
        try (ClientX509Util x509 = new ClientX509Util()) {
            names = List.of(
                    x509.getSslKeystoreLocationProperty(),
                    x509.getSslKeystorePasswdProperty(),
                    x509.getSslTruststoreLocationProperty(),
                    x509.getSslClientAuthProperty());
        }
        runner.withPropertyValues("sharding.zookeeper.embedded.ssl.bundle=server")
                .run(context -> {
                    context.getBean(EmbeddedZooKeeper.class);

                    assertThat(System.getProperty(names.get(0))).isNotBlank();
                    assertThat(System.getProperty(names.get(1))).isNull();
                    assertThat(System.getProperty(names.get(3))).isEqualTo("need");
                    // The connection factory's class is chosen when the factory is made, and left as it was for other
                    // servers.
                    assertThat(System.getProperty("zookeeper.serverCnxnFactory"))
                            .isNull();
                    assertThat(System.getProperties().values())
                            .noneMatch(value -> value.equals(TestCertificates.PASSWORD));
                });

        assertThat(names)
                .allSatisfy(name -> assertThat(System.getProperty(name)).isNull());
    }

    @Test
    void onlyOneEmbeddedServerOfAJvmServesTlsAtATime() {
        runner.withPropertyValues("sharding.zookeeper.embedded.ssl.bundle=self").run(first -> {
            first.getBean(EmbeddedZooKeeper.class);
            EmbeddedZooKeeper second = new EmbeddedZooKeeper(
                    0,
                    null,
                    Duration.ofMillis(500),
                    new EmbeddedZooKeeper.Tls(
                            TestCertificates.load(certificates.keys("server")), TestCertificates.PASSWORD, null));

            assertThatThrownBy(second::start).hasMessageContaining("serves TLS already");
        });
    }

    private static boolean refused(RegistryConfiguration configuration) {
        try (RegistryCenter registry = new RegistryCenter(configuration.withConnectionTimeout(Duration.ofSeconds(2)))) {
            registry.start();
            return false;
        } catch (RegistryUnavailableException expected) {
            return true;
        }
    }

    /** A bundle with the keys of {@code keysOf} and the certificates of {@code trust}. */
    private String[] bundle(String name, String keysOf, @Nullable Path trust) {
        return TestCertificates.bundleProperties(name, certificates.keys(keysOf), trust);
    }
}
