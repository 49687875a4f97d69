package io.shardingjob.boot.fencing;

import static io.shardingjob.boot.fencing.TestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Fenced writes against a real database; each subclass gives one. */
abstract class AbstractFencedWritesTests {

    /** Unique per test, because a database such as PostgreSQL outlives the test run. */
    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final String settlement = "settlement_" + suffix;
    private final String fences = "fence_" + suffix;
    private JdbcClient jdbc;
    private FencedJdbc fenced;
    private JdbcFenceStore store;

    protected abstract DataSource dataSource();

    @BeforeEach
    void createTables() {
        jdbc = JdbcClient.create(dataSource());
        jdbc.sql("CREATE TABLE " + settlement + " (region VARCHAR(32) PRIMARY KEY, total INTEGER, fence BIGINT)")
                .update();
        jdbc.sql("INSERT INTO " + settlement + " (region, total) VALUES ('east', 0), ('west', 0)")
                .update();
        fenced = new FencedJdbc(jdbc, FencedJdbc.DEFAULT_FENCE_COLUMN);
        store = new JdbcFenceStore(jdbc, fences, true, Clock.systemUTC());
    }

    @Test
    void anUpdateWritesTheRunsTokenToARowNeverFencedAndToRowsFencedByEarlierOrEqualTokens() {
        assertThat(settle(run(2, 100), "east", 10)).isEqualTo(1);
        assertThat(row("east")).containsExactly(10L, 100L);

        assertThat(settle(run(2, 100), "east", 11))
                .as("the same run writing again")
                .isEqualTo(1);
        assertThat(settle(run(2, 150), "east", 12)).as("the item's next owner").isEqualTo(1);
        assertThat(row("east")).containsExactly(12L, 150L);
    }

    @Test
    void aZombiesUpdateChangesNothingItsSuccessorWroteAndThrowsNamingTheJobTheItemAndBothTokens() {
        settle(run(2, 150), "east", 12);

        assertThatThrownBy(() -> settle(run(2, 100), "east", 99))
                .isInstanceOf(FencedOutException.class)
                .hasMessageContaining("Job 'settlement': item 2's write to " + settlement + " where region = :region")
                .hasMessageContaining("fencing token 100 is below 150")
                .satisfies(thrown -> {
                    FencedOutException refused = (FencedOutException) thrown;
                    assertThat(refused.token()).isEqualTo(100);
                    assertThat(refused.highestToken()).hasValue(150);
                    assertThat(refused.item()).isEqualTo(2);
                });
        assertThat(row("east")).containsExactly(12L, 150L);
        assertThat(row("west")).as("rows the condition does not name").containsExactly(0L, null);
    }

    @Test
    void anUpdateThatMatchesNoRowUpdatesNothingAndIsNoZombie() {
        assertThat(settle(run(2, 100), "north", 5)).isZero();
    }

    @Test
    void theRunsTokenParameterIsReservedSoThatAUsersParameterCannotReplaceIt() {
        assertThatThrownBy(() -> fenced.update(
                        run(2, 100), settlement, "total = 1", "region = :fencingToken", Map.of("fencingToken", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Job 'settlement'")
                .hasMessageContaining("fencingToken");
    }

    @Test
    void aTableOrColumnNameThatIsNoPlainIdentifierIsRefusedBeforeAnyStatement() {
        assertThatThrownBy(() -> fenced.update(run(2, 100), "settlement; DROP TABLE x", "total = 1", "1 = 1", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not a table name");
        assertThatThrownBy(() -> new FencedJdbc(jdbc, "fence--"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Not a fence column name");
    }

    @Test
    void aZombiesUpdateInsideATransactionLeavesTheTransactionUsableToRollBackItsOtherWrites() {
        settle(run(2, 150), "east", 12);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource()));

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                    jdbc.sql("UPDATE " + settlement + " SET total = 7 WHERE region = 'west'")
                            .update();
                    settle(run(2, 100), "east", 99);
                }))
                .isInstanceOf(FencedOutException.class);
        assertThat(row("west")).as("rolled back with the refused write").containsExactly(0L, null);
    }

    @Test
    void theStoreAdmitsAFirstTokenAndEveryTokenAtLeastTheHighestAndRefusesLowerOnes() {
        assertThat(store.highest("settlement/2")).isEmpty();
        assertThat(store.admit("settlement/2", 100)).isTrue();
        assertThat(store.admit("settlement/2", 100)).as("the same token again").isTrue();
        assertThat(store.admit("settlement/2", 150)).isTrue();
        assertThat(store.admit("settlement/2", 120)).isFalse();
        assertThat(store.highest("settlement/2")).hasValue(150);
        assertThat(store.admit("settlement/3", 1)).as("keys are apart").isTrue();
    }

    @Test
    void overARandomHistoryTheStoreAdmitsATokenExactlyWhenItIsAtLeastEveryTokenAdmittedBefore() {
        Random random = new Random(42);
        long highest = Long.MIN_VALUE;
        for (int i = 0; i < 200; i++) {
            long token = random.nextInt(50);
            assertThat(store.admit("history", token))
                    .as("token %d after %d", token, highest)
                    .isEqualTo(token >= highest);
            highest = Math.max(highest, token);
        }
        assertThat(store.highest("history")).hasValue(highest);
    }

    @Test
    void aRunRefusedByTheStoreThrowsWithItsKeyAndTheHigherToken() {
        store.admit(run(2, 150));

        assertThatThrownBy(() -> store.admit(run(2, 100)))
                .isInstanceOf(FencedOutException.class)
                .hasMessageContaining(fences + " key 'settlement/2'")
                .hasMessageContaining("fencing token 100 is below 150");
        assertThatCode(() -> store.admit(run(2, 100), "exports/east"))
                .as("a key of the caller's own, not admitted before")
                .doesNotThrowAnyException();
    }

    @Test
    void racingAdmissionsOfOneKeyLeaveTheHighestTokenAndAdmitNoLowerOneAfterIt() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Boolean>> admissions = new ArrayList<>();
            for (long token = 1; token <= 40; token++) {
                long given = token;
                admissions.add(() -> store.admit("race", given));
            }
            List<Future<Boolean>> answers = threads.invokeAll(admissions);
            assertThat(answers.get(39).get())
                    .as("the highest token is always admitted")
                    .isTrue();
        } finally {
            threads.shutdownNow();
        }
        assertThat(store.highest("race")).hasValue(40);
        assertThat(store.admit("race", 39)).isFalse();
    }

    @Test
    void forgettingAKeyLetsAnyTokenInAgain() {
        store.admit("settlement/2", 150);
        assertThat(store.forget("settlement/2")).isEqualTo(1);
        assertThat(store.admit("settlement/2", 1)).isTrue();
    }

    private int settle(ShardingContext run, String region, int total) {
        return fenced.update(
                run, settlement, "total = :total", "region = :region", Map.of("total", total, "region", region));
    }

    private List<Long> row(String region) {
        return jdbc.sql("SELECT total, fence FROM " + settlement + " WHERE region = :region")
                .param("region", region)
                .query((rs, n) -> {
                    List<Long> values = new ArrayList<>();
                    values.add(rs.getLong(1));
                    long fence = rs.getLong(2);
                    values.add(rs.wasNull() ? null : fence);
                    return values;
                })
                .single();
    }
}
