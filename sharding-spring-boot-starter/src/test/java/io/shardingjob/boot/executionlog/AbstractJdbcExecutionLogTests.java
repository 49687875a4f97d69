package io.shardingjob.boot.executionlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The execution log against a real database; each subclass gives one. */
abstract class AbstractJdbcExecutionLogTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    /** A fire time on a whole second, relative to now: the log stores it as it is and compares it with nothing. */
    private static final Instant FIRE = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    /** Unique per test, because a database such as PostgreSQL outlives the test run. */
    private final String job = "settlement-" + UUID.randomUUID();

    private final List<JdbcExecutionLog> logs = new ArrayList<>();

    protected abstract DataSource dataSource();

    @AfterEach
    void closeLogs() throws InterruptedException {
        for (JdbcExecutionLog log : logs) {
            log.close();
        }
    }

    @Test
    void writesEveryFieldAndReadsItBack() {
        JdbcExecutionLog log = startLog();
        ExecutionRecord failed = new ExecutionRecord(
                job,
                2,
                "Guangzhou",
                "10.0.0.5@-@4242",
                7,
                FIRE,
                FIRE.plusMillis(12).plusNanos(345_000),
                FIRE.plusSeconds(3),
                Outcome.TIMED_OUT,
                ExecutionSource.RETRY,
                "io.shardingjob.core.execution.ItemTimeoutException: item 2 exceeded its timeout",
                5,
                "orders=eu",
                1);

        log.executed(failed);
        awaitWritten(log, 1);

        assertThat(log.executions(job, 0, 10).executions()).containsExactly(failed);
    }

    @Test
    void returnsAJobsExecutionsNewestFirstInPages() {
        JdbcExecutionLog log = startLog();
        for (int i = 0; i < 5; i++) {
            log.executed(success(i, FIRE.plusSeconds(i)));
        }
        log.executed(new ExecutionRecord(
                "anotherJob",
                0,
                "",
                "a",
                1,
                FIRE,
                FIRE,
                FIRE,
                Outcome.SUCCESS,
                ExecutionSource.NORMAL,
                null,
                1,
                "",
                0));
        awaitWritten(log, 6);

        ExecutionPage first = log.executions(job, 0, 2);
        ExecutionPage last = log.executions(job, 2, 2);

        assertThat(first.store()).isEqualTo("jdbc");
        assertThat(first.executions()).extracting(ExecutionRecord::item).containsExactly(4, 3);
        assertThat(log.executions(job, 1, 2).executions())
                .extracting(ExecutionRecord::item)
                .containsExactly(2, 1);
        assertThat(last.executions()).extracting(ExecutionRecord::item).containsExactly(0);
        assertThat(log.executions(job, 3, 2).executions()).isEmpty();
    }

    @Test
    void keepsTheLogAcrossARestartAndLeavesTheExistingTableAlone() throws InterruptedException {
        JdbcExecutionLog before = startLog();
        before.executed(success(0, FIRE));
        awaitWritten(before, 1);
        before.close();

        JdbcExecutionLog after = startLog();
        after.executed(success(1, FIRE.plusSeconds(1)));
        awaitWritten(after, 1);

        assertThat(after.executions(job, 0, 10).executions())
                .extracting(ExecutionRecord::item)
                .containsExactly(1, 0);
    }

    @Test
    void cutsTextsLongerThanTheirColumnsRatherThanLosingTheRecord() {
        JdbcExecutionLog log = startLog();
        ExecutionRecord verbose = new ExecutionRecord(
                job,
                0,
                "p".repeat(5000),
                "a",
                1,
                FIRE,
                FIRE,
                FIRE,
                Outcome.FAILED,
                ExecutionSource.NORMAL,
                "x".repeat(10_000),
                1,
                "j".repeat(5000),
                0);

        log.executed(verbose);
        awaitWritten(log, 1);

        ExecutionRecord stored = log.executions(job, 0, 1).executions().get(0);
        assertThat(stored.failure()).hasSize(2000);
        assertThat(stored.parameter()).hasSize(1000);
        assertThat(log.writes().failed()).isZero();
    }

    private JdbcExecutionLog startLog() {
        JdbcExecutionLog log = new JdbcExecutionLog(dataSource(), true, 100, 10);
        log.start();
        logs.add(log);
        return log;
    }

    private ExecutionRecord success(int item, Instant start) {
        return new ExecutionRecord(
                job,
                item,
                "",
                "a",
                1,
                FIRE,
                start,
                start.plusMillis(5),
                Outcome.SUCCESS,
                ExecutionSource.NORMAL,
                null,
                5,
                "",
                0);
    }

    private static void awaitWritten(JdbcExecutionLog log, long count) {
        await().atMost(PATIENCE).until(() -> log.writes().written() >= count);
        assertThat(log.writes().failed()).isZero();
    }
}
