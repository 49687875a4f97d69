package io.shardingjob.boot.autoconfigure;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A real database that a test can take down (connections refused) or hang (connections never come). */
final class SwitchableDataSource implements DataSource {

    enum State {
        UP,
        DOWN,
        HUNG
    }

    private final DataSource database;

    private volatile State state = State.UP;

    private volatile CountDownLatch hang = new CountDownLatch(1);

    SwitchableDataSource(DataSource database) {
        this.database = database;
    }

    void set(State state) {
        if (state == State.HUNG) {
            hang = new CountDownLatch(1);
        } else {
            hang.countDown();
        }
        this.state = state;
    }

    @Override
    public Connection getConnection() throws SQLException {
        switch (state) {
            case DOWN -> throw new SQLException("Connection refused (the test took the database down)");
            case HUNG -> {
                try {
                    hang.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted while the database hung", ex);
                }
                return getConnection();
            }
            default -> {
                return database.getConnection();
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
