package io.shardingjob.boot.executionlog;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJobListener;
import io.shardingjob.core.execution.ExecutionSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * Every item execution of this instance, written to the {@code sharding_job_execution} table, which survives restarts
 * and holds the executions of every instance sharing the database.
 *
 * <p>An execution only offers its record to a bounded queue; one writer thread drains it in batches. So a slow, hung or
 * unreachable database never delays or fails an execution: a full queue drops the record, a failed batch drops its
 * records, and both are counted ({@link #writes()}) and logged once per outage, not per record.
 */
@ImportRuntimeHints(JdbcExecutionLog.SchemaRuntimeHints.class)
public final class JdbcExecutionLog implements ShardedJobListener, ExecutionLog, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JdbcExecutionLog.class);

    public static final String SCHEMA = "io/shardingjob/boot/executionlog/execution-log-schema.sql";

    private static final String COLUMNS = "job_name, item, sharding_total_count, item_parameter, job_parameter,"
            + " instance_id, epoch, fire_time, start_time, end_time, outcome, source, retry, error_message";

    private static final String INSERT =
            "INSERT INTO sharding_job_execution (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    // OFFSET .. FETCH is standard SQL, understood by PostgreSQL, H2, Oracle 12+, SQL Server 2012+ and Db2.
    private static final String PAGE = "SELECT " + COLUMNS + " FROM sharding_job_execution WHERE job_name = ?"
            + " ORDER BY start_time DESC, id DESC OFFSET ? ROWS FETCH NEXT ? ROWS ONLY";

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final DataSource dataSource;

    private final boolean initializeSchema;

    private final int batchSize;

    private final BlockingQueue<ExecutionRecord> queue;

    private final Thread writer;

    private final AtomicLong written = new AtomicLong();

    private final AtomicLong failed = new AtomicLong();

    private final AtomicLong dropped = new AtomicLong();

    private volatile boolean schemaReady;

    private volatile boolean closed;

    private boolean inOutage;

    public JdbcExecutionLog(DataSource dataSource, boolean initializeSchema, int queueCapacity, int batchSize) {
        this.dataSource = dataSource;
        this.initializeSchema = initializeSchema;
        this.batchSize = Math.max(1, batchSize);
        this.queue = new ArrayBlockingQueue<>(Math.max(1, queueCapacity));
        this.writer = new Thread(this::writeUntilClosed, "sharding-execution-log");
        this.writer.setDaemon(true);
    }

    public void start() {
        writer.start();
    }

    @Override
    public void executed(ExecutionRecord execution) {
        if (!closed && !queue.offer(execution) && dropped.incrementAndGet() % 1000 == 1) {
            log.warn(
                    "Execution log: {} executions waiting to be written; dropping new ones ({} so far)",
                    queue.size(),
                    dropped.get());
        }
    }

    public ExecutionPage.Writes writes() {
        return new ExecutionPage.Writes(written.get(), failed.get(), dropped.get());
    }

    /** @throws IllegalStateException when the database cannot answer */
    @Override
    public ExecutionPage executions(String job, int page, int size) {
        List<ExecutionRecord> executions = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            ensureSchema(connection);
            try (PreparedStatement select = connection.prepareStatement(PAGE)) {
                select.setString(1, job);
                select.setLong(2, (long) page * size);
                select.setInt(3, size);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        executions.add(read(rows));
                    }
                }
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("The execution log's database did not answer: " + ex.getMessage(), ex);
        }
        return new ExecutionPage(job, page, size, "jdbc", executions, writes());
    }

    /** Stops taking records and writes what is queued, waiting at most a few seconds for the database. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        writer.interrupt();
        writer.join(CLOSE_TIMEOUT.toMillis());
    }

    private void writeUntilClosed() {
        List<ExecutionRecord> batch = new ArrayList<>(batchSize);
        while (!closed) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException ex) {
                break;
            }
            queue.drainTo(batch, batchSize - 1);
            write(batch);
            batch.clear();
        }
        // Closing: what is left goes in one last pass.
        while (queue.drainTo(batch, batchSize) > 0) {
            write(batch);
            batch.clear();
        }
    }

    private void write(List<ExecutionRecord> batch) {
        try (Connection connection = dataSource.getConnection()) {
            ensureSchema(connection);
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                for (ExecutionRecord execution : batch) {
                    bind(insert, execution);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            written.addAndGet(batch.size());
            if (inOutage) {
                inOutage = false;
                log.info("Execution log: the database answers again; {} executions were lost meanwhile", failed.get());
            }
        } catch (SQLException | RuntimeException ex) {
            failed.addAndGet(batch.size());
            if (!inOutage) {
                inOutage = true;
                log.warn(
                        "Execution log: could not write to the database ({}); executions go on, and their records are"
                                + " dropped and counted until it answers again",
                        ex.toString());
            }
        }
    }

    private void ensureSchema(Connection connection) throws SQLException {
        if (!initializeSchema || schemaReady) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            for (String sql : schemaStatements()) {
                statement.execute(sql);
            }
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
        schemaReady = true;
    }

    static List<String> schemaStatements() {
        try (InputStream in = JdbcExecutionLog.class.getClassLoader().getResourceAsStream(SCHEMA)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA + " is missing from the starter");
            }
            StringBuilder sql = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.stripLeading().startsWith("--")) {
                    sql.append(line).append('\n');
                }
            }
            return List.of(sql.toString().split(";")).stream()
                    .map(String::strip)
                    .filter(statement -> !statement.isEmpty())
                    .toList();
        } catch (IOException ex) {
            throw new IllegalStateException("Could not read " + SCHEMA, ex);
        }
    }

    private static void bind(PreparedStatement insert, ExecutionRecord execution) throws SQLException {
        insert.setString(1, cut(execution.job(), 255));
        insert.setInt(2, execution.item());
        insert.setInt(3, execution.shardingTotalCount());
        insert.setString(4, cut(execution.parameter(), 1000));
        insert.setString(5, cut(execution.jobParameter(), 1000));
        insert.setString(6, cut(execution.instance(), 255));
        insert.setLong(7, execution.epoch());
        insert.setObject(8, execution.fireTime().atOffset(ZoneOffset.UTC));
        insert.setObject(9, execution.start().atOffset(ZoneOffset.UTC));
        insert.setObject(10, execution.end().atOffset(ZoneOffset.UTC));
        insert.setString(11, execution.outcome().name());
        insert.setString(12, execution.source().name());
        insert.setInt(13, execution.retry());
        if (execution.failure() == null) {
            insert.setNull(14, Types.VARCHAR);
        } else {
            insert.setString(14, cut(execution.failure(), 2000));
        }
    }

    private static ExecutionRecord read(ResultSet row) throws SQLException {
        return new ExecutionRecord(
                row.getString("job_name"),
                row.getInt("item"),
                row.getString("item_parameter"),
                row.getString("instance_id"),
                row.getLong("epoch"),
                row.getObject("fire_time", OffsetDateTime.class).toInstant(),
                row.getObject("start_time", OffsetDateTime.class).toInstant(),
                row.getObject("end_time", OffsetDateTime.class).toInstant(),
                ExecutionRecord.Outcome.valueOf(row.getString("outcome")),
                ExecutionSource.valueOf(row.getString("source")),
                row.getString("error_message"),
                row.getInt("sharding_total_count"),
                row.getString("job_parameter"),
                row.getInt("retry"));
    }

    /** Long texts (an exception's message, say) are cut rather than failing the whole batch. */
    private static String cut(@Nullable String text, int length) {
        if (text == null) {
            return "";
        }
        return text.length() <= length ? text : text.substring(0, length);
    }

    /** The schema is read from the class path: a native image holds it only when told to. */
    static final class SchemaRuntimeHints implements RuntimeHintsRegistrar {

        @Override
        public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
            hints.resources().registerPattern(SCHEMA);
        }
    }
}
