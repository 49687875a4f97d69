package io.shardingjob.boot.executionlog;

import io.shardingjob.boot.TestPostgres;
import javax.sql.DataSource;

/** The execution log on PostgreSQL, where users run it ({@link TestPostgres} says which server). */
class PostgresExecutionLogTests extends AbstractJdbcExecutionLogTests {

    /** Skips the test, saying why, when no server answers. */
    @Override
    protected DataSource dataSource() {
        return TestPostgres.dataSourceOrSkip();
    }
}
