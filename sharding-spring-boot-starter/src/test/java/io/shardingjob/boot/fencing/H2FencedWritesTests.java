package io.shardingjob.boot.fencing;

import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** Fenced writes on H2, always available. */
class H2FencedWritesTests extends AbstractFencedWritesTests {

    private final JdbcDataSource dataSource = new JdbcDataSource();

    H2FencedWritesTests() {
        dataSource.setURL("jdbc:h2:mem:fencing-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
