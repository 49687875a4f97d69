package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The highest fencing token seen per key, in a table of the application's database, for writes that have no row of
 * their own to carry a fence (a file, a message, a call to another service, an insert): {@link #admit(String, long)}
 * records a token that is at least the highest seen and refuses a lower one. Called in the transaction of the write it
 * guards, the admission and the write commit together, and the row's lock holds a zombie's admission back until its
 * successor's transaction ended, which then refuses it.
 *
 * <p>The table ({@value #DEFAULT_TABLE} unless told otherwise) is created on first use when asked; {@link #schema}
 * gives its DDL, for a Flyway or Liquibase migration.
 */
public final class JdbcFenceStore {

    public static final String DEFAULT_TABLE = "sharding_fence";

    private final JdbcClient jdbc;
    private final String table;
    private final boolean initializeSchema;
    private final Clock clock;
    private volatile boolean schemaReady;

    /** A store on {@value #DEFAULT_TABLE}, created on first use when missing. */
    public JdbcFenceStore(DataSource dataSource) {
        this(JdbcClient.create(dataSource), DEFAULT_TABLE, true, Clock.systemUTC());
    }

    /**
     * @param initializeSchema whether to create the table on first use when missing; off when a migration creates it
     * @param clock what stamps each admission's time, kept for operators
     */
    public JdbcFenceStore(JdbcClient jdbc, String table, boolean initializeSchema, Clock clock) {
        this.jdbc = jdbc;
        this.table = FencedJdbc.identifier(table, "fence table");
        this.initializeSchema = initializeSchema;
        this.clock = clock;
    }

    /** The key a run's item is fenced under when the caller names none: the job and the item, {@code "job/2"}. */
    public static String keyOf(ShardingContext run) {
        return keyOf(run.jobName(), run.item());
    }

    /** The key of a job's item, {@code "job/2"}, as {@link #keyOf(ShardingContext)} gives it for the item's runs. */
    public static String keyOf(String jobName, int item) {
        return jobName + "/" + item;
    }

    /**
     * Records {@code token} for {@code key} when no higher one was recorded.
     *
     * @return true when admitted (the token is now the highest), false when a higher token was recorded before
     */
    public boolean admit(String key, long token) {
        ensureSchema();
        if (raise(key, token)) {
            return true;
        }
        int inserted;
        try {
            inserted = jdbc.sql("INSERT INTO " + table + " (fence_key, token, admitted_at) SELECT :key, :token, :at"
                            + " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE fence_key = :key)")
                    .param("key", key)
                    .param("token", token)
                    .param("at", OffsetDateTime.now(clock.withZone(ZoneOffset.UTC)))
                    .update();
        } catch (DuplicateKeyException raced) {
            // Another first admission of the key committed between the check and the insert. Outside a transaction
            // the key's row is there to compare with now; inside one, PostgreSQL aborted the transaction, so the run
            // fails and its retry admits again.
            if (TransactionSynchronizationManager.isActualTransactionActive()) {
                throw raced;
            }
            inserted = 0;
        }
        // None inserted: the key was there, with a higher token or one another transaction committed meanwhile.
        return inserted == 1 || raise(key, token);
    }

    /**
     * Admits the run's token under its item's key ({@link #keyOf}).
     *
     * @throws FencedOutException when a later owner of the item was admitted with a higher token
     */
    public void admit(ShardingContext run) {
        admit(run, keyOf(run));
    }

    /**
     * Admits the run's token under {@code key}.
     *
     * @throws FencedOutException when a higher token was admitted under the key: the run was taken over and must stop
     */
    public void admit(ShardingContext run, String key) {
        if (!admit(key, run.fencingToken())) {
            throw new FencedOutException(
                    run,
                    table + " key '" + key + "'",
                    highest(key).stream().boxed().findFirst().orElse(null));
        }
    }

    /** The highest token admitted under {@code key}, if any was. */
    public OptionalLong highest(String key) {
        ensureSchema();
        return jdbc
                .sql("SELECT token FROM " + table + " WHERE fence_key = :key")
                .param("key", key)
                .query(Long.class)
                .list()
                .stream()
                .filter(Objects::nonNull)
                .mapToLong(Long::longValue)
                .findFirst();
    }

    /** Forgets the tokens of keys no run will write under again, such as a removed job's. */
    public int forget(String key) {
        ensureSchema();
        return jdbc.sql("DELETE FROM " + table + " WHERE fence_key = :key")
                .param("key", key)
                .update();
    }

    private boolean raise(String key, long token) {
        return jdbc.sql("UPDATE " + table + " SET token = :token, admitted_at = :at WHERE fence_key = :key"
                                + " AND token <= :token")
                        .param("key", key)
                        .param("token", token)
                        .param("at", OffsetDateTime.now(clock.withZone(ZoneOffset.UTC)))
                        .update()
                == 1;
    }

    private void ensureSchema() {
        if (!initializeSchema || schemaReady) {
            return;
        }
        synchronized (this) {
            if (!schemaReady) {
                jdbc.sql(schema(table)).update();
                schemaReady = true;
            }
        }
    }

    /**
     * The DDL of the table. Runs on PostgreSQL and H2 as it is; with Flyway or Liquibase, put it in a migration and
     * set {@code sharding.fencing.initialize-schema=false}.
     */
    public static String schema(String table) {
        return "CREATE TABLE IF NOT EXISTS " + FencedJdbc.identifier(table, "fence table")
                + " (fence_key VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL,"
                + " admitted_at TIMESTAMP WITH TIME ZONE NOT NULL)";
    }
}
