package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.JdbcFenceStore;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Fenced writes to the application's database, when Spring's JDBC support is present and there is one {@link
 * DataSource}: a {@link FencedJdbc} for updates of the application's rows and a {@link JdbcFenceStore} for the highest
 * token per key. Neither touches the database before it is used.
 */
// After the DataSource, named rather than referenced, so that Spring Boot's JDBC module stays optional.
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@ConditionalOnClass(JdbcClient.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingFencingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FencedJdbc shardingFencedJdbc(DataSource dataSource, ShardingProperties properties) {
        String column = properties.getFencing().getFenceColumn();
        return new FencedJdbc(JdbcClient.create(dataSource), checked("sharding.fencing.fence-column", column));
    }

    @Bean
    @ConditionalOnMissingBean
    JdbcFenceStore shardingJdbcFenceStore(DataSource dataSource, ShardingProperties properties) {
        FencingProperties fencing = properties.getFencing();
        return new JdbcFenceStore(
                JdbcClient.create(dataSource),
                checked("sharding.fencing.table", fencing.getTable()),
                fencing.isInitializeSchema(),
                Clock.systemUTC());
    }

    /** A name that goes into SQL statements as it is: refused at start-up unless it is a plain identifier. */
    private static String checked(String property, String name) {
        if (!FencedJdbc.isIdentifier(name)) {
            throw new InvalidShardingPropertyException(
                    property,
                    "'" + name + "' is not a plain SQL name",
                    "Set it to a table or column name of letters, digits and underscores, optionally schema-qualified"
                            + " (schema.name).");
        }
        return name;
    }
}
