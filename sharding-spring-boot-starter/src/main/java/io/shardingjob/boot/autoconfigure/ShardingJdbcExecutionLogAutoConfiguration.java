package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.executionlog.JdbcExecutionLog;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The execution log in the application's database, when {@code sharding.execution.jdbc-log.enabled=true} and there is
 * one {@link DataSource}: every item run of every instance, kept beyond the in-memory history.
 */
// After the DataSource, named rather than referenced, so that Spring Boot's JDBC module stays optional.
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("sharding.execution.jdbc-log.enabled")
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingJdbcExecutionLogAutoConfiguration {

    /** Started at once: it only starts a writer thread, which touches the database when the first record comes. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    JdbcExecutionLog shardedJobJdbcExecutionLog(DataSource dataSource, ShardingProperties properties) {
        ExecutionProperties.JdbcLog settings = properties.getExecution().getJdbcLog();
        JdbcExecutionLog log = new JdbcExecutionLog(
                dataSource, settings.isInitializeSchema(), settings.getQueueCapacity(), settings.getBatchSize());
        log.start();
        return log;
    }
}
