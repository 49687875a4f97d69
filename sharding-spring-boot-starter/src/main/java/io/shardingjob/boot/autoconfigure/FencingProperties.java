package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.JdbcFenceStore;

/**
 * {@code sharding.fencing.*}: the fenced writes to the application's {@code DataSource} ({@code FencedJdbc} and
 * {@code JdbcFenceStore} beans, present with Spring's JDBC support and one {@code DataSource}).
 */
public class FencingProperties {

    /** The column, in the tables FencedJdbc updates, that holds the highest fencing token written to each row. */
    private String fenceColumn = FencedJdbc.DEFAULT_FENCE_COLUMN;

    /** The table in which JdbcFenceStore keeps the highest fencing token admitted per key. */
    private String table = JdbcFenceStore.DEFAULT_TABLE;

    /** Whether to create the fence table on first use when missing; turn off when Flyway or Liquibase creates it. */
    private boolean initializeSchema = true;

    public String getFenceColumn() {
        return fenceColumn;
    }

    public void setFenceColumn(String fenceColumn) {
        this.fenceColumn = fenceColumn;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public boolean isInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(boolean initializeSchema) {
        this.initializeSchema = initializeSchema;
    }
}
