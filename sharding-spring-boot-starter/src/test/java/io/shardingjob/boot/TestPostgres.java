package io.shardingjob.boot;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server the tests that run against one use: {@code .ci/run} starts one and names it in {@code
 * SHARDING_TEST_POSTGRES_URL} (a JDBC URL with user and password parameters); without it, 127.0.0.1:5432 as user
 * {@code postgres}. Where none answers, those tests are skipped, saying why, so that the build still passes.
 */
public final class TestPostgres {

    /** The server named by the environment; an empty value (an unset variable exported as blank) names none. */
    private static final String URL = Optional.ofNullable(System.getenv("SHARDING_TEST_POSTGRES_URL"))
            .filter(url -> !url.isBlank())
            .orElse("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");

    private static PGSimpleDataSource dataSource;

    private static String unreachable;

    private TestPostgres() {}

    /**
     * The server, once it answered; call it per test rather than per class, so that every skipped test names the
     * reason in the report.
     */
    public static synchronized DataSource dataSourceOrSkip() {
        if (dataSource == null) {
            dataSource = new PGSimpleDataSource();
            dataSource.setURL(URL);
            dataSource.setConnectTimeout(3);
            try (Connection connection = dataSource.getConnection()) {
                connection.isValid(3);
            } catch (SQLException ex) {
                unreachable = ex.getMessage();
            }
        }
        assumeTrue(
                unreachable == null,
                "PostgreSQL is not reachable at " + URL + " (" + unreachable + "); .ci/run starts one, or set"
                        + " SHARDING_TEST_POSTGRES_URL");
        return dataSource;
    }
}
