package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.JdbcFenceStore;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The fencing helpers come with Spring's JDBC support and one DataSource, and a bad table name stops start-up. */
class ShardingFencingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingFencingAutoConfiguration.class));

    private static DataSource database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:fencing-config-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @Test
    void givesTheHelpersOnTheApplicationsDataSourceWithoutTouchingIt() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .run(context -> {
                    assertThat(context).hasSingleBean(FencedJdbc.class);
                    assertThat(context).hasSingleBean(JdbcFenceStore.class);
                    JdbcClient jdbc = JdbcClient.create(context.getBean(DataSource.class));
                    assertThat(jdbc.sql(
                                            "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'SHARDING_FENCE'")
                                    .query(Integer.class)
                                    .single())
                            .as("no table before the first admission")
                            .isZero();
                    assertThat(context.getBean(JdbcFenceStore.class).admit("job/0", 7))
                            .isTrue();
                });
    }

    @Test
    void keepsTheTokensInTheTableItIsToldAndCreatesItOnFirstUse() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withPropertyValues("sharding.fencing.table=job_fences")
                .run(context -> {
                    context.getBean(JdbcFenceStore.class).admit("job/0", 7);
                    assertThat(JdbcClient.create(context.getBean(DataSource.class))
                                    .sql("SELECT token FROM job_fences WHERE fence_key = 'job/0'")
                                    .query(Long.class)
                                    .single())
                            .isEqualTo(7);
                });
    }

    @Test
    void givesNoHelpersWithoutADataSourceOrWithoutSpringJdbc() {
        runner.run(context -> assertThat(context).doesNotHaveBean(FencedJdbc.class));
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withClassLoader(new FilteredClassLoader(JdbcClient.class))
                .run(context -> assertThat(context).doesNotHaveBean(JdbcFenceStore.class));
    }

    @Test
    void aTableNameThatIsNoPlainSqlNameFailsStartUpNamingTheProperty() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withPropertyValues("sharding.fencing.table=fences; DROP TABLE orders")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis =
                            new InvalidShardingPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("sharding.fencing.table", "'fences; DROP TABLE orders' is not a plain SQL name");
                });
    }
}
