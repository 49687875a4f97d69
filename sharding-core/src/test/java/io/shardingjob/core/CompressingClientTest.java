package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.GzipCompressionProvider;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Curator client that compresses by default, against a real ZooKeeper: the fire ledger writes and reads its nodes
 * raw, so Curator's caches and latches on such a client fail to read them (manual fires were left to the audits and
 * followers never ran). A coordinator refuses one at start, naming the job and the setting; a client that only has a
 * compression provider runs its jobs as any other.
 */
class CompressingClientTest extends JobInstanceTestSupport {

    private static final JobConfiguration TWO_ITEMS = JobConfiguration.builder("compressed")
            .cron("0 0 0 1 1 *")
            .shardingTotalCount(2)
            .build();

    private final ExecutorService items = Executors.newCachedThreadPool();

    @AfterEach
    void stopItems() {
        items.shutdownNow();
    }

    @Test
    void refusesAClientThatCompressesByDefaultAtStartNamingTheJobAndTheSetting() throws Exception {
        CuratorFramework client = client(builder -> builder.enableCompression());
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, TWO_ITEMS)
                .instanceId("a")
                .job(context -> {}, items)
                .build());

        assertThatThrownBy(coordinator::start)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Job 'compressed'")
                .hasMessageContaining("enableCompression()");
        assertThat(coordinator.isStarted()).isFalse();
        assertThat(client.checkExists().forPath(new JobNodes("compressed").instance("a")))
                .as("nothing registered")
                .isNull();
    }

    @Test
    void aClientWithACompressionProviderThatIsNotEnabledRunsAManualFireAtOnce() throws Exception {
        CuratorFramework client = client(builder -> builder.compressionProvider(new GzipCompressionProvider()));
        JobCoordinator coordinator = closeAfterTest(JobCoordinator.builder(client, TWO_ITEMS)
                .instanceId("a")
                // No periodic audit within the test: what runs was started by the announcement.
                .reconcileInterval(Duration.ofMinutes(5))
                .job(context -> {}, items)
                .listener(results::add)
                .build());
        coordinator.start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> coordinator.localItems().size() == 2);

        Instant fireTime = coordinator.trigger("by hand");

        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        results(result -> result.fireTime().equals(fireTime)).size() == 2);
        assertThat(results(result -> result.fireTime().equals(fireTime)))
                .allSatisfy(result -> assertThat(result.source()).isEqualTo(ExecutionSource.MANUAL));
    }

    private CuratorFramework client(UnaryOperator<CuratorFrameworkFactory.Builder> more) throws Exception {
        CuratorFramework client = more.apply(CuratorFrameworkFactory.builder()
                        .connectString(server.getConnectString())
                        .namespace(NAMESPACE)
                        .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
                        .retryPolicy(new ExponentialBackoffRetry(100, 10, 500)))
                .build();
        closeAfterTest(client);
        client.start();
        assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return client;
    }
}
