package io.shardingjob.sample;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The {@code settlement} table ({@code schema.sql}): one row per region and fire, written through {@link FencedJdbc}
 * so that a run taken over while it ran (its copy paused past its ZooKeeper session, then resumed) cannot overwrite the
 * row of the run that took it over. Every copy pointed at one database shares the rule; the sample's default in-memory
 * H2 is one per copy.
 */
@Component
class SettlementStore {

    private static final String TABLE = "settlement";

    private static final String ROW = "region = :region AND fire_time = :fireTime";

    private final FencedJdbc fenced;

    private final JdbcClient jdbc;

    SettlementStore(FencedJdbc fenced, JdbcClient jdbc) {
        this.fenced = fenced;
        this.jdbc = jdbc;
    }

    /**
     * Writes the total of the run's region for the run's fire, under the run's fencing token.
     *
     * @throws FencedOutException when a later owner of the item wrote the row first: this run was taken over, and
     *     nothing was written
     */
    void settle(ShardingContext run, long total) {
        Map<String, Object> row = Map.of(
                "region", run.itemParameter(),
                "fireTime", fireTimeOf(run),
                "total", total,
                "settledBy", run.instanceId());
        if (update(run, row) > 0) {
            return;
        }
        // The fire's first write of the region. An insert needs no fence: a later owner's update or insert finds the
        // row and holds a token at least this one, so it overwrites it; a zombie finds its successor's row instead.
        try {
            jdbc.sql("INSERT INTO " + TABLE + " (region, fire_time, total, settled_by, fence)"
                            + " VALUES (:region, :fireTime, :total, :settledBy, :fence)")
                    .params(row)
                    .param("fence", run.fencingToken())
                    .update();
        } catch (DuplicateKeyException raced) {
            // Another run of the item inserted it a moment ago: the fence decides between the two.
            update(run, row);
        }
    }

    private int update(ShardingContext run, Map<String, Object> row) {
        return fenced.update(run, TABLE, "total = :total, settled_by = :settledBy", ROW, row);
    }

    /** Timestamps with a zone, as both H2 and PostgreSQL bind them: JDBC has no {@code Instant}. */
    private static OffsetDateTime fireTimeOf(ShardingContext run) {
        return OffsetDateTime.ofInstant(run.fireTime(), ZoneOffset.UTC);
    }
}
