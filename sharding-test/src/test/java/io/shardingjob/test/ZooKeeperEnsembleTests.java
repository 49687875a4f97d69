package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cluster on an ensemble of three ZooKeeper servers, one of which a test stops and restarts. */
@ShardingTest(ensemble = 3)
class ZooKeeperEnsembleTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void eachInstanceReachesEveryServerOfTheEnsembleThroughAProxyOfItsOwn(ShardingCluster cluster) {
        ShardingInstance first = cluster.start("app-1", SettlementApplication.class);
        ShardingInstance second = cluster.start("app-2", SettlementApplication.class);

        assertThat(cluster.zooKeepers()).hasSize(3);
        List<String> firstLink = proxiesOf(first);
        List<String> secondLink = proxiesOf(second);
        assertThat(firstLink).hasSize(3).doesNotContainAnyElementsOf(secondLink);
        List<String> servers = cluster.zooKeepers().stream()
                .map(server -> "127.0.0.1:" + server.port())
                .toList();
        assertThat(firstLink).doesNotContainAnyElementsOf(servers);
        assertThat(cluster.connectString().split(",")).hasSize(3);
    }

    @Test
    void everyFireRunsEachItemOnceWhileOneServerAfterAnotherIsStoppedAndRestarted(ShardingCluster cluster) {
        cluster.start("app-1", SettlementApplication.class);
        cluster.start("app-2", SettlementApplication.class);
        cluster.awaitSettled("settlement");
        cluster.fireAndAwait("settlement").assertEveryItemRanOnce();

        for (ZooKeeperServer server : cluster.zooKeepers()) {
            server.stop();
            assertThat(server.isRunning()).isFalse();

            // The instances whose connection went to it move to another server, on the same session.
            await().atMost(PATIENCE).until(() -> cluster.instances().stream().allMatch(ShardingInstance::isConnected));
            cluster.awaitSettled("settlement");
            cluster.fireAndAwait("settlement").assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();

            server.restart();
            assertThat(server.isRunning()).isTrue();
        }
        cluster.awaitSettled("settlement");
        cluster.fireAndAwait("settlement").assertEveryItemRanOnce();
    }

    private static List<String> proxiesOf(ShardingInstance instance) {
        String connectString =
                instance.context().getEnvironment().getRequiredProperty("sharding.zookeeper.connect-string");
        return Arrays.asList(connectString.split(","));
    }
}
