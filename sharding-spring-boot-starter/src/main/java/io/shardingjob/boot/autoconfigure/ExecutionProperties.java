package io.shardingjob.boot.autoconfigure;

/** {@code sharding.execution.*}: the threads that run fires and items, shared by every job. */
public class ExecutionProperties {

    /**
     * Items that may run at the same time, for all jobs together. With failover off (the default) a run's thread waits
     * for its start to be written, so the runs due at one instant beyond this many wait a round trip per wave: 64 lets
     * a hundred runs of one instant start in two waves. Threads idle for a minute end.
     */
    private int poolSize = 64;

    /** Fires planned (their items claimed and handed on) at the same time, for all jobs together; more wait in line. */
    private int maxConcurrentFires = 8;

    /** Item executions kept in memory per job for the sharding endpoint. */
    private int historySize = 200;

    /** The execution log in a relational database. */
    private final JdbcLog jdbcLog = new JdbcLog();

    public JdbcLog getJdbcLog() {
        return jdbcLog;
    }

    public int getPoolSize() {
        return poolSize;
    }

    public void setPoolSize(int poolSize) {
        this.poolSize = poolSize;
    }

    public int getMaxConcurrentFires() {
        return maxConcurrentFires;
    }

    public void setMaxConcurrentFires(int maxConcurrentFires) {
        this.maxConcurrentFires = maxConcurrentFires;
    }

    public int getHistorySize() {
        return historySize;
    }

    public void setHistorySize(int historySize) {
        this.historySize = historySize;
    }

    /** The execution log written to the application's {@code DataSource}. */
    public static class JdbcLog {

        /** Whether to write every item execution to the sharding_job_execution table of the DataSource. */
        private boolean enabled;

        /** Whether to create the table and its index when missing; turn off when Flyway or Liquibase creates them. */
        private boolean initializeSchema = true;

        /** Executions that may wait to be written; beyond it new ones are dropped and counted, never waited for. */
        private int queueCapacity = 10_000;

        /** Executions written in one batch. */
        private int batchSize = 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public int getQueueCapacity() {
            return queueCapacity;
        }

        public void setQueueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }
}
