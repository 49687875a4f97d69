package io.shardingjob.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/** The sample's settlement table, on H2 from the sample's own {@code schema.sql}, written as the job writes it. */
class SettlementStoreTests {

    private static final Instant FIRE = Instant.parse("2026-11-30T08:00:05Z");

    private JdbcClient jdbc;

    private SettlementStore store;

    @BeforeEach
    void createTheTable() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:settlement-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(h2);
        jdbc = JdbcClient.create(h2);
        store = new SettlementStore(new FencedJdbc(h2), jdbc);
    }

    @Test
    void refusesATakenOverRunsWriteOnceItsSuccessorWroteAndKeepsTheSuccessorsRow() {
        store.settle(run("app-1", 4_294_967_463L, FIRE, "Shanghai"), 8_000);
        store.settle(run("app-2", 4_294_967_501L, FIRE, "Shanghai"), 8_000);

        assertThatThrownBy(() -> store.settle(run("app-1", 4_294_967_463L, FIRE, "Shanghai"), 1))
                .isInstanceOf(FencedOutException.class)
                .hasMessageContaining("4294967501");

        assertThat(rows()).containsExactly("Shanghai " + FIRE + " 8000 app-2 4294967501");
    }

    @Test
    void theSuccessorOverwritesTheRowOfARunItTookOverThatWroteFirst() {
        store.settle(run("app-1", 463, FIRE, "Beijing"), 1);
        store.settle(run("app-2", 501, FIRE, "Beijing"), 7_000);

        assertThat(rows()).containsExactly("Beijing " + FIRE + " 7000 app-2 501");
    }

    @Test
    void acceptsTheSameTokenAgainAsTheRetriesOfOneRunCarryIt() {
        store.settle(run("app-1", 7, FIRE, "Shenzhen"), 1);
        store.settle(run("app-1", 7, FIRE, "Shenzhen"), 8_000);

        assertThat(rows()).containsExactly("Shenzhen " + FIRE + " 8000 app-1 7");
    }

    @Test
    void keepsOneRowPerRegionAndFireWhateverTheTokensOfOtherRows() {
        Instant next = FIRE.plusSeconds(5);
        store.settle(run("app-2", 900, FIRE, "Guangzhou"), 9_000);
        store.settle(run("app-1", 800, FIRE, "Beijing"), 7_000);
        store.settle(run("app-1", 950, next, "Guangzhou"), 9_000);

        assertThat(rows())
                .containsExactly(
                        "Beijing " + FIRE + " 7000 app-1 800",
                        "Guangzhou " + FIRE + " 9000 app-2 900",
                        "Guangzhou " + next + " 9000 app-1 950");
    }

    private List<String> rows() {
        return jdbc.sql("SELECT region, fire_time, total, settled_by, fence FROM settlement ORDER BY region, fire_time")
                .query((rs, n) -> rs.getString("region") + " "
                        + rs.getObject("fire_time", OffsetDateTime.class).toInstant() + " "
                        + rs.getLong("total") + " " + rs.getString("settled_by") + " " + rs.getLong("fence"))
                .list();
    }

    private static ShardingContext run(String instance, long token, Instant fireTime, String region) {
        return new ShardingContext(
                "orderSettlement",
                ShardingContext.taskId("orderSettlement", List.of(1), instance),
                4,
                1,
                region,
                "",
                3,
                instance,
                token,
                fireTime,
                ExecutionSource.NORMAL,
                "orderSettlement");
    }
}
