package io.shardingjob.boot.fencing;

import io.shardingjob.boot.TestPostgres;
import javax.sql.DataSource;

/** Fenced writes on PostgreSQL, where users run them ({@link TestPostgres} says which server). */
class PostgresFencedWritesTests extends AbstractFencedWritesTests {

    /** Skips the test, saying why, when no server answers. */
    @Override
    protected DataSource dataSource() {
        return TestPostgres.dataSourceOrSkip();
    }
}
