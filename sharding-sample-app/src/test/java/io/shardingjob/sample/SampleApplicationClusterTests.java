package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.test.FireRecord;
import io.shardingjob.test.ShardingCluster;
import io.shardingjob.test.ShardingTest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sample as its users would test their own service: two copies on the test kit's ZooKeeper. */
@ShardingTest
class SampleApplicationClusterTests {

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    /** The kit's server rather than the sample's embedded one. */
    private static final Map<String, String> ON_THE_KITS_ZOOKEEPER =
            Map.of("sharding.zookeeper.embedded.enabled", "false");

    /** The settlement as a nightly job, as a service would schedule it in production. */
    private static final Map<String, String> NIGHTLY = Map.of(
            "sharding.zookeeper.embedded.enabled", "false",
            "sharding.jobs.orderSettlement.cron", "0 0 2 * * *",
            "sharding.jobs.orderSettlement.time-zone", "Asia/Shanghai");

    @Test
    void theNightlySettlementRunsAtTwoInShanghaiWhenTheClockGetsThere(ShardingCluster cluster) {
        LocalDate tomorrow = LocalDate.now(SHANGHAI).plusDays(1);
        cluster.clock().moveTo(tomorrow.atTime(1, 0), SHANGHAI);
        cluster.start("copy-1", List.of(SampleApplication.class), NIGHTLY);
        cluster.start("copy-2", List.of(SampleApplication.class), NIGHTLY);
        cluster.awaitSettled("orderSettlement");

        Instant two = cluster.clock().moveTo(tomorrow.atTime(2, 0), SHANGHAI);

        cluster.awaitFire("orderSettlement", two).assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(cluster.runs("orderSettlement"))
                .extracting(ExecutionRecord::fireTime)
                .containsOnly(two);
    }

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
