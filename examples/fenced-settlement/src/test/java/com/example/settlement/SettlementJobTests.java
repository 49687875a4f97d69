package com.example.settlement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.test.FireRecord;
import io.shardingjob.test.ShardingCluster;
import io.shardingjob.test.ShardingInstance;
import io.shardingjob.test.ShardingTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The settlement as a user tests it with the sharding test kit: two instances, and one of them paused mid-item. */
@ShardingTest
class SettlementJobTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Counted down once the paused instance's runs are inside the job; they go on once {@link #resume} is. */
    private static volatile CountDownLatch inside = new CountDownLatch(1);

    private static volatile CountDownLatch resume = new CountDownLatch(1);

    /** A database of this test's own, shared by its instances (they run in this one JVM). */
    private final String database = "jdbc:h2:mem:settlement-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @BeforeEach
    void nothingPausedYet() {
        inside = new CountDownLatch(1);
        resume = new CountDownLatch(1);
    }

    @AfterEach
    void letPausedRunsEnd() {
        resume.countDown();
    }

    @Test
    void twoInstancesSettleEveryRegionOnce(ShardingCluster cluster) {
        cluster.start("app-1", List.of(SettlementApplication.class), inTheSharedDatabase());
        cluster.start("app-2", List.of(SettlementApplication.class), inTheSharedDatabase());
        cluster.awaitSettled("settlement");

        FireRecord fire = cluster.fireAndAwait("settlement");

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(settledBy()).containsOnly("app-1", "app-2").hasSize(4);
    }

    @Test
    void aPausedInstancesWriteIsRefusedOnceItsSuccessorSettledItsRegions(ShardingCluster cluster) throws Exception {
        ShardingInstance paused =
                cluster.start("app-1", List.of(SettlementApplication.class, PausedTotals.class), inTheSharedDatabase());
        cluster.start("app-2", List.of(SettlementApplication.class), inTheSharedDatabase());
        cluster.awaitSettled("settlement");
        Instant fireTime = cluster.fire("settlement");
        assertThat(inside.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // Frozen past its session: the server expires it, and app-2 takes its regions over and settles them.
        paused.freeze();
        await().atMost(PATIENCE)
                .until(() -> settledBy().stream().filter("app-2"::equals).count() == 4);
        paused.thaw();
        resume.countDown();

        await().atMost(PATIENCE)
                .until(() -> cluster.record("settlement", fireTime)
                        .map(now -> now.runs().stream().anyMatch(run -> run.outcome() == Outcome.FENCED_OUT))
                        .orElse(false));
        FireRecord fire = cluster.awaitFire("settlement", fireTime);
        fire.assertEveryItemRanOnce();
        assertThat(fire.runs())
                .filteredOn(run -> run.instance().equals("app-1"))
                .extracting(ExecutionRecord::outcome)
                .containsOnly(Outcome.FENCED_OUT);
        assertThat(settledBy()).containsOnly("app-2").hasSize(4);
    }

    private Map<String, String> inTheSharedDatabase() {
        return Map.of("spring.datasource.url", database);
    }

    private List<String> settledBy() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(database);
        h2.setUser("sa");
        return JdbcClient.create(h2)
                .sql("SELECT settled_by FROM settlement WHERE settled_by IS NOT NULL")
                .query(String.class)
                .list();
    }

    /** The paused instance's totals: its runs wait inside the job, deaf to interrupts, as a paused process's would. */
    @Configuration(proxyBeanMethods = false)
    static class PausedTotals {

        @Bean
        @Primary
        RegionTotals pausedTotals() {
            return new RegionTotals() {
                @Override
                public long totalOf(String region) {
                    inside.countDown();
                    while (true) {
                        try {
                            if (resume.await(1, TimeUnit.SECONDS)) {
                                return super.totalOf(region);
                            }
                        } catch (InterruptedException ignored) {
                            // The interrupt the lost connection sends never reaches a paused process.
                        }
                    }
                }
            };
        }
    }
}
