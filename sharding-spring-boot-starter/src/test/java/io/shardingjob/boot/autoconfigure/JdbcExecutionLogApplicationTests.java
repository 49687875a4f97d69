package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionPage;
import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ExecutionRecord.Outcome;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.boot.autoconfigure.SwitchableDataSource.State;
import io.shardingjob.boot.executionlog.JdbcExecutionLog;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The JDBC execution log in an application: on when asked for, queried through the operations, never in the way. */
class JdbcExecutionLogApplicationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ShardingAutoConfigurations.all())
            .withPropertyValues(TestZooKeeper.properties("jdbc-log-test"))
            .withBean(EverySecondJob.class);

    private static SwitchableDataSource database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:app-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return new SwitchableDataSource(h2);
    }

    @Test
    void keepsTheLogInMemoryUnlessItIsTurnedOn() {
        runner.withBean(SwitchableDataSource.class, JdbcExecutionLogApplicationTests::database)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(JdbcExecutionLog.class);
                    ShardingOperations operations = context.getBean(ShardingOperations.class);
                    await().atMost(PATIENCE)
                            .until(() -> !operations
                                    .executions("ticker", 0, 5)
                                    .executions()
                                    .isEmpty());
                    assertThat(operations.executions("ticker", 0, 5).store()).isEqualTo("memory");
                });
    }

    @Test
    void writesEveryExecutionToTheDatabaseAndAnswersQueriesFromIt() {
        runner.withBean(SwitchableDataSource.class, JdbcExecutionLogApplicationTests::database)
                .withPropertyValues("sharding.execution.jdbc-log.enabled=true")
                .run(context -> {
                    ShardingOperations operations = context.getBean(ShardingOperations.class);
                    await().atMost(PATIENCE).untilAsserted(() -> {
                        ExecutionPage page = operations.executions("ticker", 0, 2);
                        assertThat(page.store()).isEqualTo("jdbc");
                        assertThat(page.executions()).hasSize(2);
                    });
                    ExecutionPage page = operations.executions("ticker", 0, 2);
                    assertThat(page.executions().get(0).start())
                            .isAfterOrEqualTo(page.executions().get(1).start());
                    assertThat(page.executions()).allSatisfy(execution -> {
                        assertThat(execution.job()).isEqualTo("ticker");
                        assertThat(execution.shardingTotalCount()).isEqualTo(1);
                        assertThat(execution.outcome()).isEqualTo(Outcome.SUCCESS);
                    });
                    assertThat(page.writes().failed()).isZero();
                });
    }

    @Test
    void aDatabaseOutageIsCountedAndNeverDisturbsExecutions() {
        SwitchableDataSource database = database();
        runner.withBean(SwitchableDataSource.class, () -> database)
                .withPropertyValues("sharding.execution.jdbc-log.enabled=true")
                .run(context -> {
                    EverySecondJob job = context.getBean(EverySecondJob.class);
                    JdbcExecutionLog log = context.getBean(JdbcExecutionLog.class);
                    ShardingOperations operations = context.getBean(ShardingOperations.class);
                    await().atMost(PATIENCE).until(() -> log.writes().written() >= 1);

                    database.set(State.DOWN);
                    int runsBefore = job.runs.get();
                    await().atMost(PATIENCE).until(() -> log.writes().failed() >= 2);
                    assertThat(job.runs.get()).isGreaterThan(runsBefore);
                    assertThat(operations.recentExecutions("ticker"))
                            .first()
                            .extracting(ExecutionRecord::outcome)
                            .isEqualTo(Outcome.SUCCESS);

                    database.set(State.UP);
                    long writtenBefore = log.writes().written();
                    await().atMost(PATIENCE).until(() -> log.writes().written() > writtenBefore);
                });
    }

    @Test
    void aHungDatabaseNeverDelaysExecutionsAndItsBacklogIsDroppedAndCounted() {
        SwitchableDataSource database = database();
        runner.withBean(SwitchableDataSource.class, () -> database)
                .withPropertyValues(
                        "sharding.execution.jdbc-log.enabled=true", "sharding.execution.jdbc-log.queue-capacity=1")
                .run(context -> {
                    EverySecondJob job = context.getBean(EverySecondJob.class);
                    JdbcExecutionLog log = context.getBean(JdbcExecutionLog.class);
                    database.set(State.HUNG);
                    int runsBefore = job.runs.get();

                    await().atMost(PATIENCE).until(() -> log.writes().dropped() >= 1);
                    await().atMost(PATIENCE).until(() -> job.runs.get() >= runsBefore + 3);

                    database.set(State.UP);
                });
    }

    static class EverySecondJob {

        final AtomicInteger runs = new AtomicInteger();

        @ShardedJob(name = "ticker", cron = "* * * * * *")
        void tick(ShardingContext context) {
            runs.incrementAndGet();
        }
    }
}
