package io.shardingjob.sample.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardingjob.core.testing.ProcessGroup;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.h2.tools.Server;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * One database that every copy of a drill writes, with the sample's {@code settlement} table created once from its
 * {@code schema.sql}, as a migration would: the copies run Boot's script initialization only on an in-memory database.
 */
final class SharedDatabase implements AutoCloseable {

    /** The PostgreSQL that {@code .ci/run} starts, as a JDBC URL with its user; none when unset or blank. */
    static final Optional<String> POSTGRES_URL =
            Optional.ofNullable(System.getenv("SHARDING_TEST_POSTGRES_URL")).filter(url -> !url.isBlank());

    private final String name;

    private final String url;

    private final List<String> copyProperties;

    private final DataSource dataSource;

    private final AutoCloseable server;

    private SharedDatabase(
            String name, String url, List<String> copyProperties, DataSource dataSource, AutoCloseable server) {
        this.name = name;
        this.url = url;
        this.copyProperties = copyProperties;
        this.dataSource = dataSource;
        this.server = server;
    }

    /** An H2 server in this JVM, over TCP on loopback, holding an in-memory database for as long as it runs. */
    static SharedDatabase h2() {
        try {
            Server server = Server.createTcpServer(
                            "-tcpPort", Integer.toString(ProcessGroup.freePort()), "-ifNotExists")
                    .start();
            String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:settlement;DB_CLOSE_DELAY=-1";
            // The first connection creates the database and makes its user the owner: the copies connect as the same.
            DriverManagerDataSource dataSource = new DriverManagerDataSource(url, "sa", "");
            return new SharedDatabase(
                            "h2",
                            url,
                            List.of("spring.datasource.url=" + url, "spring.datasource.username=sa"),
                            dataSource,
                            server::stop)
                    .withTheSettlementTable();
        } catch (SQLException ex) {
            throw new IllegalStateException("Could not start an H2 server", ex);
        }
    }

    /**
     * A schema of its own ({@code schema}, dropped and created again) in the PostgreSQL named by {@code
     * SHARDING_TEST_POSTGRES_URL}; skips the test, saying why, when that is unset.
     */
    static SharedDatabase postgres(String schema) {
        assumeTrue(
                POSTGRES_URL.isPresent(),
                "SHARDING_TEST_POSTGRES_URL is not set: the PostgreSQL cells of the fenced-writes drill need one"
                        + " (.ci/run starts one and sets it); the H2 cells run without");
        String server = POSTGRES_URL.get();
        JdbcClient admin = JdbcClient.create(new DriverManagerDataSource(server));
        admin.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE").update();
        admin.sql("CREATE SCHEMA " + schema).update();
        String url = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return new SharedDatabase(
                        "postgres",
                        url,
                        List.of("spring.datasource.url=" + url),
                        new DriverManagerDataSource(url),
                        () -> {})
                .withTheSettlementTable();
    }

    private SharedDatabase withTheSettlementTable() {
        new ResourceDatabasePopulator(new ClassPathResource("schema.sql")).execute(dataSource);
        return this;
    }

    /** {@code h2} or {@code postgres}. */
    String name() {
        return name;
    }

    /** What a copy is given, {@code key=value}, to write this database. */
    List<String> copyProperties() {
        return copyProperties;
    }

    JdbcClient jdbc() {
        return JdbcClient.create(dataSource);
    }

    /** The row of {@code region} for {@code fire} in the sample's {@code settlement} table, if written. */
    Optional<Settlement> settlement(String region, Instant fire) {
        return jdbc().sql(
                        "SELECT region, settled_by, fence FROM settlement WHERE region = :region AND fire_time = :fire")
                .param("region", region)
                .param("fire", OffsetDateTime.ofInstant(fire, ZoneOffset.UTC))
                .query((rs, n) ->
                        new Settlement(rs.getString("region"), rs.getString("settled_by"), rs.getLong("fence")))
                .optional();
    }

    /** The regions with a row for {@code fire}, in alphabetical order. */
    List<String> regionsSettled(Instant fire) {
        return jdbc().sql("SELECT region FROM settlement WHERE fire_time = :fire ORDER BY region")
                .param("fire", OffsetDateTime.ofInstant(fire, ZoneOffset.UTC))
                .query(String.class)
                .list();
    }

    @Override
    public void close() throws Exception {
        server.close();
    }

    @Override
    public String toString() {
        return name + " at " + url;
    }

    /** A settlement row: its region, the instance whose run wrote it last, and that run's token. */
    record Settlement(String region, String settledBy, long fence) {}
}
