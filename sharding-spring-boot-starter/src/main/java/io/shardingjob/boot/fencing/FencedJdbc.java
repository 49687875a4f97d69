package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Updates rows of the application's own tables only for the run that owns the item now: each row keeps, in a fence
 * column, the highest fencing token that wrote it, and an update matches only rows whose fence is at most the run's
 * token, writing that token with it. A run taken over while its process was paused past its session (a zombie) then
 * changes nothing its successor wrote, and learns so by a {@link FencedOutException}, which ends it without a retry.
 *
 * <pre>{@code
 * fenced.update(context, "settlement", "total = :total", "region = :region",
 *         Map.of("total", total, "region", context.itemParameter()));
 * }</pre>
 *
 * <p>runs {@code UPDATE settlement SET total = :total, fence = :fencingToken WHERE (region = :region) AND (fence IS
 * NULL OR fence <= :fencingToken)}. The fence column is a nullable {@code BIGINT} added to the table ({@code ALTER
 * TABLE settlement ADD COLUMN fence BIGINT}); a row never written under a fence has none and is admitted. The update
 * joins the caller's transaction, as any {@link JdbcClient} statement does.
 */
public final class FencedJdbc {

    /** The fence column's name unless told otherwise. */
    public static final String DEFAULT_FENCE_COLUMN = "fence";

    /** The named parameter that carries the run's token; the caller's parameters may not use it. */
    public static final String TOKEN_PARAMETER = "fencingToken";

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*(\\.[A-Za-z_][A-Za-z0-9_$]*)?");

    private final JdbcClient jdbc;
    private final String fenceColumn;

    public FencedJdbc(DataSource dataSource) {
        this(JdbcClient.create(dataSource), DEFAULT_FENCE_COLUMN);
    }

    /** @param fenceColumn the column, in every table this updates, that holds the highest token written to the row */
    public FencedJdbc(JdbcClient jdbc, String fenceColumn) {
        this.jdbc = jdbc;
        this.fenceColumn = identifier(fenceColumn, "fence column");
    }

    /**
     * Updates the rows of {@code table} that match {@code condition} with {@code assignments}, and writes the run's
     * token to their fence, unless a later owner of the item wrote there first.
     *
     * @param run the run writing, whose {@link ShardingContext#fencingToken()} fences the update
     * @param assignments what to set, as in an UPDATE's SET clause ({@code "total = :total, settled = true"})
     * @param condition which rows, as in its WHERE clause ({@code "region = :region"})
     * @param parameters the named parameters of both
     * @return the rows updated: 0 when no row matches the condition
     * @throws FencedOutException when rows match but a later owner of the item wrote a higher token to them: nothing
     *     was updated, and the run must stop
     */
    public int update(
            ShardingContext run, String table, String assignments, String condition, Map<String, ?> parameters) {
        String target = identifier(table, "table");
        if (parameters.containsKey(TOKEN_PARAMETER)) {
            throw new IllegalArgumentException("Job '" + run.jobName() + "': the parameter '" + TOKEN_PARAMETER
                    + "' of a fenced update of " + target + " is the run's token; name yours otherwise");
        }
        Map<String, Object> all = new HashMap<>(parameters);
        all.put(TOKEN_PARAMETER, run.fencingToken());
        int updated = jdbc.sql("UPDATE " + target + " SET " + assignments + ", " + fenceColumn + " = :"
                        + TOKEN_PARAMETER
                        + " WHERE (" + condition + ") AND (" + fenceColumn + " IS NULL OR " + fenceColumn + " <= :"
                        + TOKEN_PARAMETER + ")")
                .params(all)
                .update();
        if (updated > 0) {
            return updated;
        }
        // Nothing matched: either no row meets the condition, or every one that does holds a later owner's token.
        Long highest = jdbc
                .sql("SELECT MAX(" + fenceColumn + ") FROM " + target + " WHERE (" + condition + ") AND " + fenceColumn
                        + " > :" + TOKEN_PARAMETER)
                .params(all)
                .query(Long.class)
                .list()
                .stream()
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
        if (highest != null) {
            throw new FencedOutException(run, target + " where " + condition, highest);
        }
        return 0;
    }

    /** Whether a name may go into a statement as it is: letters, digits and underscores, optionally qualified. */
    public static boolean isIdentifier(String name) {
        return IDENTIFIER.matcher(name).matches();
    }

    /** A table's or column's name, checked, since it goes into the statement as it is. */
    static String identifier(String name, String what) {
        if (!isIdentifier(name)) {
            throw new IllegalArgumentException("Not a " + what + " name: '" + name + "'");
        }
        return name;
    }
}
