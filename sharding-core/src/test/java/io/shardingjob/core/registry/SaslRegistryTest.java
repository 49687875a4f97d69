package io.shardingjob.core.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.login.Configuration;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SASL DIGEST-MD5 against a real ZooKeeper server in its own JVM that knows two users from a JAAS file made at test
 * time and serves only authenticated sessions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SaslRegistryTest {

    private static final String JAAS_FILE = "java.security.auth.login.config";

    private final ProcessGroup processes = new ProcessGroup();

    private ZooKeeperServers.Server server;

    @BeforeAll
    void startAServerThatKnowsTwoUsers() {
        server = ZooKeeperServers.sasl(
                processes, "sasl/zookeeper", Map.of("billing", "billing-secret", "reports", "reports-secret"));
    }

    @AfterAll
    void stopIt() {
        processes.close();
    }

    @Test
    void theRightCredentialConnectsAndRunsAJob() throws Exception {
        try (RegistryCenter registry = new RegistryCenter(as("billing", "billing-secret"))) {
            registry.start();
            Set<Integer> ran = ConcurrentHashMap.newKeySet();
            try (JobCoordinator coordinator = JobCoordinator.builder(registry.client(), job("settlement"))
                    .instanceId("a")
                    .build()) {
                coordinator.start();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> coordinator.localItems().size() == 2);
                coordinator.fire(context -> ran.add(context.item()));
            }

            assertThat(ran).containsExactlyInAnyOrder(0, 1);
        }
    }

    @Test
    void aSectionOfTheJvmsOwnJaasConfigurationLogsInAsItSays() throws Exception {
        Path file = ProcessGroup.workDirectory("sasl/client").resolve("jaas.conf");
        Files.writeString(file, """
                BillingClient {
                  org.apache.zookeeper.server.auth.DigestLoginModule required
                  username="billing"
                  password="billing-secret";
                };
                """);
        String before = System.getProperty(JAAS_FILE);
        System.setProperty(JAAS_FILE, file.toString());
        Configuration.getConfiguration().refresh();
        try (RegistryCenter registry = new RegistryCenter(RegistryConfiguration.of(server.address(), "settlement")
                .withConnectionTimeout(Duration.ofSeconds(10))
                .withSasl(RegistrySasl.loginContext("BillingClient")))) {
            registry.start();

            assertThat(registry.client().checkExists().forPath("/")).isNotNull();
        } finally {
            if (before == null) {
                System.clearProperty(JAAS_FILE);
            } else {
                System.setProperty(JAAS_FILE, before);
            }
            Configuration.getConfiguration().refresh();
        }
    }

    @Test
    void aSectionTheJvmsJaasConfigurationDoesNotHaveFailsNamingIt() {
        RegistryConfiguration configuration = RegistryConfiguration.of(server.address(), "settlement")
                .withSasl(RegistrySasl.loginContext("NoSuchSection"));

        assertThatThrownBy(() -> new RegistryCenter(configuration))
                .isInstanceOfSatisfying(
                        InvalidRegistrySettingException.class,
                        invalid -> assertThat(invalid.setting()).isEqualTo("sasl.loginContext"))
                .hasMessageContaining("no section 'NoSuchSection'");
    }

    @Test
    void aWrongPasswordFailsStartUpSayingTheServerRefusedTheLogin() {
        RegistryCenter registry = new RegistryCenter(as("billing", "not-the-secret"));

        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining("SASL login")
                .hasMessageContaining("DIGEST-MD5 as billing")
                .hasMessageContaining("sharding.zookeeper.sasl")
                .hasMessageNotContaining("not-the-secret");
    }

    @Test
    void anotherIdentityCanNeitherReadNorChangeTheJobsNodes() throws Exception {
        try (RegistryCenter billing = new RegistryCenter(as("billing", "billing-secret"));
                // An application of its own, in a namespace of its own, on the same ensemble.
                RegistryCenter reports = new RegistryCenter(as("reports", "reports-secret", "reports"))) {
            billing.start();
            reports.start();
            try (JobCoordinator coordinator = JobCoordinator.builder(billing.client(), job("payroll"))
                    .instanceId("a")
                    .build()) {
                coordinator.start();

                assertThatThrownBy(() ->
                                reports.client().usingNamespace(null).getData().forPath("/sasl/payroll/config"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> reports.client()
                                .usingNamespace(null)
                                .setData()
                                .forPath("/sasl/payroll/config", new byte[0]))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
    }

    private RegistryConfiguration as(String user, String password) {
        return as(user, password, "sasl");
    }

    private RegistryConfiguration as(String user, String password, String namespace) {
        return RegistryConfiguration.of(server.address(), namespace)
                .withConnectionTimeout(Duration.ofSeconds(5))
                .withSasl(RegistrySasl.digestMd5(user, password));
    }

    private static JobConfiguration job(String name) {
        return JobConfiguration.builder(name)
                .cron("0 0 * * * *")
                .shardingTotalCount(2)
                .build();
    }
}
