package io.shardingjob.core.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistryCenterTest {

    private TestingServer server;

    @BeforeEach
    void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stopZooKeeper() throws Exception {
        server.close();
    }

    @Test
    void connectsUnderItsNamespace() throws Exception {
        try (RegistryCenter registry =
                new RegistryCenter(RegistryConfiguration.of(server.getConnectString(), "billing"))) {
            registry.start();
            registry.client().create().forPath("/probe");

            assertThat(registry.isConnected()).isTrue();
            assertThat(rawClient().checkExists().forPath("/billing/probe")).isNotNull();
        }
    }

    @Test
    void failsStartUpNamingTheConnectStringWhenZooKeeperIsUnreachable() throws Exception {
        int freePort;
        try (ServerSocket socket = new ServerSocket(0)) {
            freePort = socket.getLocalPort();
        }
        RegistryConfiguration unreachable = RegistryConfiguration.of("127.0.0.1:" + freePort, "billing")
                .withConnectionTimeout(Duration.ofMillis(500));
        RegistryCenter registry = new RegistryCenter(unreachable);

        assertThatThrownBy(registry::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + freePort)
                .hasMessageContaining("connect-string");
    }

    @Test
    void withADigestOnlyThatIdentityCanReadTheJobsNodes() throws Exception {
        RegistryConfiguration secured =
                RegistryConfiguration.of(server.getConnectString(), "secured").withDigest("ops:s3cret");
        try (RegistryCenter registry = new RegistryCenter(secured)) {
            registry.start();
            JobConfiguration job =
                    JobConfiguration.builder("payroll").cron("0 0 * * * *").build();
            try (JobCoordinator coordinator = JobCoordinator.builder(registry.client(), job)
                    .instanceId("a")
                    .build()) {
                coordinator.start();

                assertThat(coordinator.configuration().name()).isEqualTo("payroll");
                assertThatThrownBy(() -> rawClient().getData().forPath("/secured/payroll/config"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                // The fire ledger too: its nodes are created in raw multi-operations, with the client's ACLs.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !coordinator.localItems().isEmpty());
                coordinator.fire(context -> {});
                String fire = registry.client()
                        .getChildren()
                        .forPath("/.ledger/payroll")
                        .get(0);
                String claim = registry.client()
                        .getChildren()
                        .forPath("/.ledger/payroll/" + fire)
                        .get(0);
                for (String node :
                        List.of("/secured/.ledger/payroll/" + fire, "/secured/.ledger/payroll/" + fire + "/" + claim)) {
                    assertThatThrownBy(() -> rawClient().getData().forPath(node))
                            .as(node)
                            .isInstanceOf(KeeperException.NoAuthException.class);
                }
            }
        }
    }

    @Test
    void aDigestOtherThanTheOneThatCreatedTheNamespaceFailsStartUpNamingTheProperty() throws Exception {
        try (RegistryCenter owner = new RegistryCenter(
                RegistryConfiguration.of(server.getConnectString(), "guarded").withDigest("ops:right-one"))) {
            owner.start();
            owner.client().create().forPath("/payroll");
        }
        RegistryCenter other = new RegistryCenter(
                RegistryConfiguration.of(server.getConnectString(), "guarded").withDigest("ops:other-one"));

        assertThatThrownBy(other::start)
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining("'/guarded'")
                .hasMessageContaining("sharding.zookeeper.digest")
                .hasMessageNotContaining("other-one");
    }

    @Test
    void letsACustomizerChangeTheClientBeforeItIsBuilt() throws Exception {
        RegistryConfiguration configuration = RegistryConfiguration.of(server.getConnectString(), "billing");
        try (RegistryCenter registry = new RegistryCenter(configuration, builder -> builder.namespace("customized"))) {
            registry.start();
            registry.client().create().forPath("/probe");

            assertThat(rawClient().checkExists().forPath("/customized/probe")).isNotNull();
        }
    }

    @Test
    void usesAClientOfTheApplicationsOwnUnderItsNamespaceStartsItAndLeavesItOpen() throws Exception {
        CuratorFramework own = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        try (own) {
            try (RegistryCenter registry = RegistryCenter.using(own, "billing")) {
                registry.start();
                registry.client().create().forPath("/probe");

                assertThat(registry.connectString()).isEqualTo(server.getConnectString());
            }
            assertThat(own.getState()).isEqualTo(CuratorFrameworkState.STARTED);
            assertThat(own.checkExists().forPath("/billing/probe")).isNotNull();
        }
    }

    @Test
    void keepsTheNamespaceOfAClientOfTheApplicationsOwn() throws Exception {
        try (CuratorFramework own = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .namespace("theirs")
                .retryPolicy(new RetryOneTime(100))
                .build()) {
            own.start();
            try (RegistryCenter registry = RegistryCenter.using(own, "billing")) {
                registry.start();
                registry.client().create().forPath("/probe");
            }
            assertThat(rawClient().checkExists().forPath("/theirs/probe")).isNotNull();
        }
    }

    @Test
    void rejectsAnInvalidNamespaceAndDigest() {
        assertThatThrownBy(() -> RegistryConfiguration.of("localhost:2181", "a/b"))
                .hasMessageContaining("namespace");
        assertThatThrownBy(
                        () -> RegistryConfiguration.of("localhost:2181", "ns").withDigest("nocolon"))
                .hasMessageContaining("user:password");
        assertThatThrownBy(() -> RegistryConfiguration.of(" ", "ns")).hasMessageContaining("connect string");
    }

    @Test
    void measuresItsClockAgainstZooKeepersOnConnecting() throws Exception {
        try (RegistryCenter registry = new RegistryCenter(RegistryConfiguration.of(server.getConnectString(), "billing")
                .withMaxClockSkew(Duration.ofSeconds(2)))) {
            registry.start();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> registry.clockSkew().isPresent());
            ClockSkew skew = registry.clockSkew().orElseThrow();
            // The server runs in this JVM, on the same clock: the skew is zero within the round trip.
            assertThat(skew.skew().abs()).isLessThanOrEqualTo(skew.uncertainty().plusMillis(1));
            assertThat(skew.bound()).isEqualTo(Duration.ofSeconds(2));
            assertThat(skew.exceeded()).isFalse();
            assertThat(rawClient().checkExists().forPath("/billing/.clock")).isNotNull();
        }
    }

    @Test
    void measuresTheClockOfAnApplicationsOwnClientWithItsBound() throws Exception {
        CuratorFramework own = rawClient();
        try (RegistryCenter registry = RegistryCenter.using(own, "billing", Duration.ofMillis(750))) {
            registry.start();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> registry.clockSkew().isPresent());
            assertThat(registry.clockSkew().orElseThrow().bound()).isEqualTo(Duration.ofMillis(750));
        } finally {
            own.close();
        }
    }

    private CuratorFramework rawClient() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        client.start();
        client.blockUntilConnected(10, TimeUnit.SECONDS);
        return client;
    }
}
