package io.shardingjob.boot.executionlog;

import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The execution log on H2, always available. */
class H2ExecutionLogTests extends AbstractJdbcExecutionLogTests {

    private final JdbcDataSource dataSource = new JdbcDataSource();

    H2ExecutionLogTests() {
        // One database per test class instance; kept open until the JVM ends so that a "restart" finds it.
        dataSource.setURL("jdbc:h2:mem:log-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }
}
