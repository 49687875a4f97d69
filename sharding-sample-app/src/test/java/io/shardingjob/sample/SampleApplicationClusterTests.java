package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.test.FireRecord;
import io.shardingjob.test.ShardingCluster;
import io.shardingjob.test.ShardingTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sample as its users would test their own service: two copies on the test kit's ZooKeeper. */
@ShardingTest
class SampleApplicationClusterTests {

    /** The kit's server rather than the sample's embedded one. */
    private static final Map<String, String> ON_THE_KITS_ZOOKEEPER =
            Map.of("sharding.zookeeper.embedded.enabled", "false");

    @Test
    void twoCopiesSettleEveryRegionOfAFireOnceBetweenThem(ShardingCluster cluster) {
        cluster.start("copy-1", List.of(SampleApplication.class), ON_THE_KITS_ZOOKEEPER);
        cluster.start("copy-2", List.of(SampleApplication.class), ON_THE_KITS_ZOOKEEPER);
        cluster.awaitSettled("orderSettlement");

        FireRecord fire = cluster.fireAndAwait("orderSettlement");

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(fire.runs()).extracting(ExecutionRecord::instance).containsOnly("copy-1", "copy-2");
        assertThat(fire.runs())
                .extracting(ExecutionRecord::parameter)
                .containsExactlyInAnyOrder("Beijing", "Shanghai", "Guangzhou", "Shenzhen");
    }
}
