package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
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
import org.springframework.jdbc.core.simple.JdbcClient;

/** The kit as a user's test uses it: instances of an application, a fire judged, a fault injected into one. */
@ShardingTest
class ShardingClusterTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @BeforeEach
    void nothingPaused() {
        SettlementApplication.PAUSED.clear();
        SettlementApplication.resume = new CountDownLatch(1);
        SettlementApplication.inside = new CountDownLatch(1);
    }

    @AfterEach
    void letPausedRunsEnd() {
        SettlementApplication.resume.countDown();
    }

    @Test
    void aFireRunsEveryItemOnceOverTwoInstancesAndIsJudgedFromTheLedgerAndTheirRuns(ShardingCluster cluster) {
        cluster.start("app-1", SettlementApplication.class);
        cluster.start("app-2", SettlementApplication.class);
        cluster.awaitSettled("settlement");

        FireRecord fire = cluster.fireAndAwait("settlement");

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(fire.runs()).extracting(ExecutionRecord::instance).containsOnly("app-1", "app-2");
        assertThat(fire.runs()).extracting(ExecutionRecord::item).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void aFrozenInstancesWriteIsRefusedOnceItsSuccessorWroteAndTheFireShowsBothRunsAtOnce(ShardingCluster cluster)
            throws Exception {
        String database = "jdbc:h2:mem:settlement-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(database);
        // The user Boot's DataSource connects as: H2 makes the database's first user its owner.
        h2.setUser("sa");
        JdbcClient jdbc = JdbcClient.create(h2);
        jdbc.sql("CREATE TABLE settlement (region VARCHAR(16) PRIMARY KEY, settled_by VARCHAR(32), fence BIGINT)")
                .update();
        jdbc.sql("INSERT INTO settlement (region) VALUES ('north'), ('south'), ('east'), ('west')")
                .update();
        Map<String, String> sharedDatabase = Map.of("spring.datasource.url", database);
        SettlementApplication.PAUSED.add("app-1");
        ShardingInstance paused = cluster.start("app-1", List.of(SettlementApplication.class), sharedDatabase);
        cluster.start("app-2", List.of(SettlementApplication.class), sharedDatabase);
        cluster.awaitSettled("settlement");
        Instant fireTime = cluster.fire("settlement");
        assertThat(SettlementApplication.inside.await(PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .isTrue();

        paused.freeze();
        // The server expires the frozen instance's session after its timeout; its items are taken over and settled.
        await().atMost(PATIENCE)
                .until(() -> jdbc.sql("SELECT COUNT(*) FROM settlement WHERE settled_by = 'app-2'")
                                .query(Integer.class)
                                .single()
                        == 4);
        paused.thaw();
        SettlementApplication.resume.countDown();

        FireRecord fire = cluster.awaitFire("settlement", fireTime);
        await().atMost(PATIENCE)
                .until(() -> cluster.record("settlement", fireTime).orElseThrow().runs().stream()
                        .anyMatch(run -> run.outcome() == Outcome.FENCED_OUT));
        fire = cluster.record("settlement", fireTime).orElseThrow();
        fire.assertEveryItemRanOnce();
        assertThat(fire.runs())
                .filteredOn(run -> run.instance().equals("app-1"))
                .isNotEmpty()
                .allSatisfy(run -> assertThat(run.outcome()).isEqualTo(Outcome.FENCED_OUT));
        assertThatThrownBy(fire::assertNoItemRanOnTwoInstancesAtOnce)
                .as("the frozen instance ran beside its successor: fencing made it harmless")
                .hasMessageContaining("ran at once on [app-");
        assertThat(jdbc.sql("SELECT settled_by FROM settlement")
                        .query(String.class)
                        .list())
                .containsOnly("app-2");
    }

    @Test
    void anInstanceWhoseSessionTheServerEndedRegistersAgainAndTheNextFireRunsEveryItemOnce(ShardingCluster cluster) {
        ShardingInstance first = cluster.start("app-1", SettlementApplication.class);
        cluster.start("app-2", SettlementApplication.class);
        cluster.awaitSettled("settlement");

        first.expireSession();

        await().atMost(PATIENCE).until(first::isConnected);
        cluster.awaitSettled("settlement");
        cluster.fireAndAwait("settlement").assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
    }

    @Test
    void theJudgementsNameTheJobTheFireTheItemAndTheRunsAtFault() {
        Instant fire = Instant.parse("2026-11-30T10:15:00Z");
        ExecutionRecord onFirst = run(0, "app-1", fire.plusMillis(10), fire.plusMillis(2_000));
        ExecutionRecord onSecond = run(0, "app-2", fire.plusMillis(1_000), fire.plusMillis(3_000));
        FireRecord twice = new FireRecord(
                "settlement",
                fire,
                1,
                new io.shardingjob.core.execution.LedgerFire(
                        fire,
                        true,
                        List.of(new io.shardingjob.core.execution.LedgerFire.Item(
                                0,
                                io.shardingjob.core.execution.ClaimState.DONE,
                                "app-2",
                                true,
                                io.shardingjob.core.execution.ExecutionSource.FAILOVER,
                                2,
                                0,
                                9,
                                fire.plusMillis(1_000),
                                fire.plusMillis(3_000),
                                null)),
                        List.of(),
                        List.of(),
                        null),
                List.of(onFirst, onSecond));

        assertThatThrownBy(twice::assertEveryItemRanOnce)
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Job 'settlement', fire at 2026-11-30T10:15:00Z: expected every item to run once")
                .hasMessageContaining("item 0 succeeded 2 times");
        assertThatThrownBy(twice::assertNoItemRanOnTwoInstancesAtOnce)
                .hasMessageContaining("item 0 ran at once on [app-1 2026-11-30T10:15:00.010Z..2026-11-30T10:15:02Z");
    }

    private static ExecutionRecord run(int item, String instance, Instant start, Instant end) {
        return new ExecutionRecord(
                "settlement",
                item,
                "north",
                instance,
                1,
                Instant.parse("2026-11-30T10:15:00Z"),
                start,
                end,
                Outcome.SUCCESS,
                io.shardingjob.core.execution.ExecutionSource.NORMAL,
                null,
                1,
                "",
                0);
    }
}
