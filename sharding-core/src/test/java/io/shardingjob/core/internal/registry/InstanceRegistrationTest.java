package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The registration node always belongs to the session of the process that registered, against a real ZooKeeper whose
 * sessions time out in 1.5 s.
 */
class InstanceRegistrationTest extends ZooKeeperTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static final JobNodes NODES = new JobNodes("orderSync");

    private static final String PATH = NODES.instance("a");

    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @AfterEach
    void closeRegistrations() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
    }

    @Test
    void aRestartUnderTheSameIdWaitsForTheDeadSessionsNodeAndRegistersUnderItsOwnSession() throws Exception {
        TcpProxy network = new TcpProxy(server.getPort());
        toClose.push(network);
        InstanceRegistration killed = register(clientThrough(network), () -> {});
        long deadSession = killed.sessionId();
        CuratorFramework client = newClient();
        AtomicInteger registered = new AtomicInteger();
        InstanceRegistration restarted = registration(client, registered::incrementAndGet);

        // kill -9: the process says nothing, so the server keeps its session and node until the session times out.
        network.cut();
        CompletableFuture<Void> start = CompletableFuture.runAsync(() -> restarted.start(WITHIN));

        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).untilAsserted(() -> {
            Stat dead = client.checkExists().forPath(PATH);
            assertThat(dead.getEphemeralOwner()).isEqualTo(deadSession);
            assertThat(dead.getVersion()).as("never written to").isZero();
            assertThat(restarted.isRegistered()).isFalse();
        });
        start.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
        long session = sessionOf(client);
        assertThat(restarted.sessionId()).isEqualTo(session).isNotEqualTo(deadSession);
        assertThat(client.checkExists().forPath(PATH).getEphemeralOwner()).isEqualTo(session);
        assertThat(registered).hasValue(1);
    }

    @Test
    void registersAgainUnderTheNewSessionAfterItsOwnSessionExpired() throws Exception {
        CuratorFramework client = newClient();
        AtomicInteger registered = new AtomicInteger();
        InstanceRegistration registration = register(client, registered::incrementAndGet);
        long expired = registration.sessionId();

        expireSession(client);

        await().atMost(WITHIN).untilAsserted(() -> {
            long session = sessionOf(client);
            assertThat(session).isNotEqualTo(expired);
            assertThat(registration.sessionId()).isEqualTo(session);
            Stat node = client.checkExists().forPath(PATH);
            assertThat(node).isNotNull();
            assertThat(node.getEphemeralOwner()).isEqualTo(session);
        });
        assertThat(registered).hasValue(2);
    }

    @Test
    void createsItsNodeAgainWhenItIsDeletedWhileItsSessionLives() throws Exception {
        CuratorFramework client = newClient();
        AtomicInteger registered = new AtomicInteger();
        InstanceRegistration registration = register(client, registered::incrementAndGet);

        newClient().delete().forPath(PATH);

        await().atMost(WITHIN).untilAsserted(() -> assertThat(registered).hasValue(2));
        assertThat(client.checkExists().forPath(PATH).getEphemeralOwner()).isEqualTo(sessionOf(client));
        assertThat(registration.sessionId()).isEqualTo(sessionOf(client));
    }

    @Test
    void closeNeverDeletesANodeThatAnotherSessionOwns() throws Exception {
        InstanceRegistration registration = register(newClient(), () -> {});
        CuratorFramework other = newClient();

        // Another process with the same id replaces the node in one step, so the registration cannot get in between;
        // the new node has the version ours had (0), so only its owner tells them apart.
        other.transaction()
                .forOperations(
                        other.transactionOp().delete().forPath(PATH),
                        other.transactionOp()
                                .create()
                                .withMode(CreateMode.EPHEMERAL)
                                .forPath(PATH));
        await().atMost(WITHIN).until(() -> !registration.isRegistered());
        registration.close();

        Stat stat = other.checkExists().forPath(PATH);
        assertThat(stat).isNotNull();
        assertThat(stat.getEphemeralOwner()).isEqualTo(sessionOf(other));
    }

    @Test
    void aCloseCutOffFromTheServerWaitsForItsSessionAndLeavesTheNodeToItOnlyOnceTheClientGaveItUp() throws Exception {
        TcpProxy network = new TcpProxy(server.getPort());
        toClose.push(network);
        CuratorFramework client = clientThrough(network);
        InstanceRegistration registration = register(client, () -> {});
        long session = registration.sessionId();

        network.cut();
        await().atMost(WITHIN).until(() -> !client.getZookeeperClient().isConnected());
        CompletableFuture<Boolean> deleted = CompletableFuture.supplyAsync(registration::leave);

        // The connection may come back under the session, which would keep the node for good: the close waits.
        await().during(SESSION_TIMEOUT.dividedBy(2)).atMost(WITHIN).until(() -> !deleted.isDone());
        assertThat(deleted.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                .as("the node goes with the session the client gave up")
                .isFalse();
        assertThat(sessionOf(client)).isNotEqualTo(session);
    }

    @Test
    void failsToStartNamingTheIdWhenALiveSessionOfAnotherProcessHoldsIt() throws Exception {
        InstanceRegistration holder = register(newClient(), () -> {});
        AtomicInteger registered = new AtomicInteger();
        InstanceRegistration second = registration(newClient(), registered::incrementAndGet);

        // Longer than the session timeout: a dead holder's node would have gone by then.
        assertThatThrownBy(() -> second.start(Duration.ofSeconds(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Instance id 'a' of job 'orderSync'")
                .hasMessageContaining("another live session (0x" + Long.toHexString(holder.sessionId()) + ")")
                .hasMessageContaining("own instance id");

        assertThat(second.isRegistered()).isFalse();
        assertThat(registered).hasValue(0);
        assertThat(holder.isRegistered()).isTrue();
        assertThat(newClient().checkExists().forPath(PATH).getEphemeralOwner()).isEqualTo(holder.sessionId());
    }

    private InstanceRegistration register(CuratorFramework client, Runnable onRegistered) {
        InstanceRegistration registration = registration(client, onRegistered);
        registration.start(WITHIN);
        assertThat(registration.sessionId()).isEqualTo(sessionOf(client));
        return registration;
    }

    private InstanceRegistration registration(CuratorFramework client, Runnable onRegistered) {
        InstanceRegistration registration = new InstanceRegistration(client, NODES, "a", onRegistered);
        toClose.push(registration);
        return registration;
    }

    /** A client whose network can be cut, with its own session. */
    private CuratorFramework clientThrough(TcpProxy network) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(network.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
                .connectionTimeoutMs(1000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 200))
                .build();
        toClose.push(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }

    private static long sessionOf(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
