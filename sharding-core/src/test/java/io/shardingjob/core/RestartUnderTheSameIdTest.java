package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.testing.TcpProxy;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/**
 * A process killed and restarted at once under a fixed instance id, against a real ZooKeeper whose sessions outlive
 * the restarted process's start timeout: the start waits for the dead session to go, and the job runs as soon as it
 * has.
 */
class RestartUnderTheSameIdTest extends JobInstanceTestSupport {

    /** The longest session the test server grants (twenty ticks of 100 ms). */
    private static final Duration LONG_SESSION = Duration.ofMillis(2_000);

    private static final Duration SHORT_START = Duration.ofMillis(500);

    private static final JobConfiguration ONE_ITEM = JobConfiguration.builder("settlement")
            .cron("* * * * * *")
            .shardingTotalCount(1)
            .build();

    @Test
    void startsOnceTheKilledProcesssSessionIsGoneWhenTheSessionOutlivesTheStartTimeout() throws Exception {
        TcpProxy network = closeAfterTest(new TcpProxy(server.getPort()));
        CuratorFramework killedClient = clientThrough(network);
        JobCoordinator killed = closeAfterTest(JobCoordinator.builder(killedClient, ONE_ITEM)
                .instanceId("fixed")
                .build());
        killed.start();
        CuratorFramework observer = newClient();
        String node = new JobNodes("settlement").instance("fixed");
        long deadSession = observer.checkExists().forPath(node).getEphemeralOwner();

        // kill -9: the process says nothing, so the server keeps its session and node until the session times out.
        network.cut();
        Instance restarted =
                start("fixed", ONE_ITEM, context -> {}, builder -> builder.startTimeout(SHORT_START), LONG_SESSION);

        long session = restarted.client().getZookeeperClient().getZooKeeper().getSessionId();
        Stat registration = observer.checkExists().forPath(node);
        assertThat(registration.getEphemeralOwner()).isEqualTo(session).isNotEqualTo(deadSession);
        assertThat(restarted.coordinator().isStarted()).isTrue();
        FireReport report = restarted
                .coordinator()
                .fire(ExecutionSource.NORMAL, Instant.now().truncatedTo(ChronoUnit.MILLIS));
        assertThat(report.results())
                .singleElement()
                .satisfies(result -> assertThat(result.succeeded()).isTrue());
        // The dead process is gone for good: its coordinator's close finds no client to leave through.
        killedClient.close();
    }

    /** A client whose network can be cut, with a session the test server keeps for {@link #LONG_SESSION}. */
    private CuratorFramework clientThrough(TcpProxy network) throws InterruptedException {
        CuratorFramework client = closeAfterTest(CuratorFrameworkFactory.builder()
                .connectString(network.connectString())
                .namespace(NAMESPACE)
                .sessionTimeoutMs((int) LONG_SESSION.toMillis())
                .connectionTimeoutMs(1000)
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 200))
                .build());
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }
}
