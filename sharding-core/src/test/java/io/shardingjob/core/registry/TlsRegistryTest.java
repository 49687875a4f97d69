package io.shardingjob.core.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.TestCertificates;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * TLS to a real ZooKeeper server in its own JVM that serves a {@code secureClientPort} only and asks every client for a
 * certificate; the key material is made at test time ({@link TestCertificates}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsRegistryTest {

    private final ProcessGroup processes = new ProcessGroup();

    private TestCertificates certificates;

    private ZooKeeperServers.Server server;

    @BeforeAll
    void startASecureServer() {
        certificates = TestCertificates.make(ProcessGroup.workDirectory("tls/certificates"));
        server = ZooKeeperServers.secure(processes, "tls/zookeeper", certificates);
    }

    @AfterAll
    void stopIt() {
        processes.close();
    }

    @Test
    void aClientTrustingTheServerWithItsOwnCertificateConnectsAndRunsAJob() throws Exception {
        try (RegistryCenter registry = new RegistryCenter(configuration().withTls(clientTls()))) {
            registry.start();
            Set<Integer> ran = ConcurrentHashMap.newKeySet();
            JobConfiguration job = JobConfiguration.builder("settlement")
                    .cron("0 0 * * * *")
                    .shardingTotalCount(3)
                    .build();
            try (JobCoordinator coordinator = JobCoordinator.builder(registry.client(), job)
                    .instanceId("a")
                    .build()) {
                coordinator.start();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> coordinator.localItems().size() == 3);
                FireReport report = coordinator.fire(context -> ran.add(context.item()));

                assertThat(ran).containsExactlyInAnyOrder(0, 1, 2);
                assertThat(report.items()).containsExactly(0, 1, 2);
                assertThat(report.succeeded()).isTrue();
            }
        }
    }

    @Test
    void aPlaintextClientFailsStartUpNamingTheConnectString() {
        RegistryCenter registry = new RegistryCenter(configuration());

        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining(server.address())
                .hasMessageContaining("connect-string");
    }

    @Test
    void aClientThatDoesNotTrustTheServersCertificateFailsStartUpSayingWhatToCheck() {
        RegistryTls strangers = RegistryTls.trusting(TestCertificates.load(certificates.trust("stranger")))
                .withKey(TestCertificates.load(certificates.keys("client")), TestCertificates.PASSWORD);
        RegistryCenter registry = new RegistryCenter(configuration().withTls(strangers));

        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining(server.address())
                .hasMessageContaining("ssl.bundle")
                .hasMessageContaining("does not chain to the bundle's trust store");
    }

    @Test
    void aTlsClientOfAPlaintextPortFailsStartUpAskingWhetherItIsTheSecurePort() throws Exception {
        try (TestingServer plaintext = new TestingServer()) {
            RegistryCenter registry = new RegistryCenter(RegistryConfiguration.of(plaintext.getConnectString(), "tls")
                    .withConnectionTimeout(Duration.ofSeconds(2))
                    .withTls(clientTls()));

            assertThatThrownBy(registry::start)
                    .isInstanceOf(RegistryUnavailableException.class)
                    .hasMessageContaining("secureClientPort, and not its plaintext clientPort");
        }
    }

    @Test
    void aClientWithoutACertificateOfItsOwnIsRefusedByAServerThatAsksForOne() {
        RegistryTls noKey = RegistryTls.trusting(TestCertificates.load(certificates.trust("client")));
        RegistryCenter registry = new RegistryCenter(configuration().withTls(noKey));

        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining("refused this application's certificate")
                .hasMessageContaining("the bundle has no key store");
    }

    @Test
    void theStoresWrittenForZooKeepersClientAreThisUsersOnlyUnderPasswordsOfTheirOwnAndGoneOnClose() throws Exception {
        ZKClientConfig config = new ZKClientConfig();
        TlsStoreFiles files = TlsStoreFiles.forClient(clientTls(), config);
        Path trust;
        try (ClientX509Util names = new ClientX509Util()) {
            trust = Path.of(config.getProperty(names.getSslTruststoreLocationProperty()));
            assertThat(config.getProperty(names.getSslKeystorePasswdProperty())).isNull();
            assertThat(Files.readString(Path.of(config.getProperty(names.getSslKeystorePasswdPathProperty()))))
                    .isNotEqualTo(TestCertificates.PASSWORD)
                    .hasSizeGreaterThan(20);
        }
        assertThat(files.properties().values()).noneMatch(value -> value.contains(TestCertificates.PASSWORD));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(trust.getParent())))
                .isEqualTo("rwx------");

        files.close();

        assertThat(trust.getParent()).doesNotExist();
    }

    private RegistryConfiguration configuration() {
        return RegistryConfiguration.of(server.address(), "tls").withConnectionTimeout(Duration.ofSeconds(3));
    }

    private RegistryTls clientTls() {
        return RegistryTls.trusting(TestCertificates.load(certificates.trust("client")))
                .withKey(TestCertificates.load(certificates.keys("client")), TestCertificates.PASSWORD);
    }
}
