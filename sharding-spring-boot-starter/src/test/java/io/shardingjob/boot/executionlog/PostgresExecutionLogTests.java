package io.shardingjob.boot.executionlog;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The execution log on PostgreSQL, where users run it. Needs a server: {@code .ci/run} starts one on 127.0.0.1:5432
 * (user {@code postgres}, trust authentication); elsewhere set {@code SHARDING_TEST_POSTGRES_URL} (a JDBC URL with
 * user and password parameters). Without one these tests are skipped, saying why, so that the build still passes.
 */
class PostgresExecutionLogTests extends AbstractJdbcExecutionLogTests {

    /** The server named by the environment; an empty value (an unset variable exported as blank) names none. */
    private static final String URL = java.util.Optional.ofNullable(System.getenv("SHARDING_TEST_POSTGRES_URL"))
            .filter(url -> !url.isBlank())
            .orElse("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    private static final PGSimpleDataSource dataSource = new PGSimpleDataSource();

    private static String unreachable;

    @BeforeAll
    static void connectOnce() {
        dataSource.setURL(URL);
        dataSource.setConnectTimeout(3);
        try (Connection connection = dataSource.getConnection()) {
            connection.isValid(3);
        } catch (SQLException ex) {
            unreachable = ex.getMessage();
        }
    }

    /** Per test rather than per class, so that every skipped test names the reason in the report. */
    @BeforeEach
    void requirePostgres() {
        assumeTrue(
                unreachable == null,
                "PostgreSQL is not reachable at " + URL + " (" + unreachable + "); .ci/run starts one, or set"
                        + " SHARDING_TEST_POSTGRES_URL");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
