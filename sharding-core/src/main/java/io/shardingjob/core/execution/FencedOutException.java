package io.shardingjob.core.execution;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A write a store refused because a later owner of the item wrote there with a higher fencing token: the run that
 * tried it was taken over (its process paused or cut off past its session) and is a zombie. Throw it, or let a fencing
 * helper throw it, from the job's code: the run ends at once, is not retried, and is reported as fenced out rather than
 * failed ({@link ItemResult#fencedOut()}), since the item's new owner runs it.
 */
public final class FencedOutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String jobName;
    private final int item;
    private final long token;
    private final @Nullable Long highestToken;

    /**
     * @param run the run whose write was refused
     * @param target what refused it, as the message should name it: a table and row, a fence key, a URL
     * @param highestToken the token the store holds, when it says
     */
    public FencedOutException(ShardingContext run, String target, @Nullable Long highestToken) {
        super(message(run, target, highestToken));
        this.jobName = run.jobName();
        this.item = run.item();
        this.token = run.fencingToken();
        this.highestToken = highestToken;
    }

    public String jobName() {
        return jobName;
    }

    public int item() {
        return item;
    }

    /** The refused run's fencing token. */
    public long token() {
        return token;
    }

    /** The higher token the store holds, written by the item's later owner, when the store said. */
    public OptionalLong highestToken() {
        return highestToken == null ? OptionalLong.empty() : OptionalLong.of(highestToken);
    }

    /** Whether a run's failure is, or was caused by, a refused write: helpers and users may wrap it. */
    public static boolean isIn(@Nullable Throwable failure) {
        // Bounded by the causes seen: initCause lets a chain loop back on itself.
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
            if (cause instanceof FencedOutException) {
                return true;
            }
        }
        return false;
    }

    private static String message(ShardingContext run, String target, @Nullable Long highestToken) {
        return "Job '" + run.jobName() + "': item " + run.item() + "'s write to " + target + " was refused: its fencing"
                + " token " + run.fencingToken()
                + (highestToken == null ? " is below the store's" : " is below " + highestToken)
                + ", written by a later owner of the item; this run was taken over and stops";
    }
}
