package io.shardingjob.core.internal.ledger;

import java.time.Duration;

/**
 * How many runs of a fire have their starts written in one request. A run starts only once its start is written ({@link
 * RunStart}); written one wave of free threads at a time, a fire of a thousand trivial items on eight threads would
 * wait for 125 requests in a row. So the run that leaves the item executor's queue first writes, with its own start,
 * the starts of the runs of its fire expected to leave within {@link #AHEAD} at the job's recent pace here (how long a
 * run holds its thread, how many run at once); and a run that finds its start written asks for the next ones once fewer
 * than half of that remain, so that the next request is answered while these run. Runs that hold their thread longer
 * than the bound each write only their own start (a wave's starts still go in one request, as they linger for one
 * another).
 *
 * <p>The bound keeps short the time a claim reads {@code RUNNING} while its run still waits in the queue: each such run
 * checks again, as it leaves, what {@link RunStart#decideWritten} checks.
 */
public final class StartBatch {

    /** How far ahead of the queue starts are written: as long as an end may linger before it is written. */
    public static final Duration AHEAD = Duration.ofMillis(GroupCommit.MAX_LINGER_MILLIS);

    /** The pace is unknown: no run of the job ended here yet. */
    public static final long UNKNOWN = -1;

    private StartBatch() {}

    /**
     * Whether starts are written ahead of their runs at all (within a fire, or with the claims made ahead of the next
     * fire): only with {@code failover} on. A process killed while such runs still wait leaves their claims {@code
     * RUNNING}, marked {@link Claim#startAhead}, and their next owner runs them again, even once failover was switched
     * off ({@link TakeOverRule#runsOrphan}). With failover off such a claim could not say whether its run began, and a
     * run that began and was cut is not repeated (the drill {@code restart-short-items-failover-off} lost a run that
     * never began so): each run writes its own start, a wave's starts in one request.
     */
    public static boolean writesAhead(boolean failover) {
        return failover;
    }

    /**
     * How many runs of the job leave the queue within {@code boundNanos}, counting the one leaving now: each thread
     * running one of its runs frees itself that many times. At least one; one when the pace is unknown.
     *
     * @param running how many runs of the job hold an item thread now
     * @param itemNanos how long a run recently held its thread, or {@link #UNKNOWN}
     */
    public static long expected(int running, long itemNanos, long boundNanos) {
        if (itemNanos < 0) {
            return 1;
        }
        long perThread = boundNanos / Math.max(1, itemNanos);
        return Math.max(1, Math.min(Integer.MAX_VALUE, Math.max(1, running) * perThread));
    }

    /**
     * How many starts to write now, counting the leaving run's own when it has none written: those expected to leave
     * within the bound, less those written ahead already, at most as many as are not written yet.
     *
     * @param unwritten the runs of the fire, the leaving one included when its start is not written, whose starts were
     *     neither written nor asked for
     * @param writtenAhead the runs of the fire whose starts were written (or asked for) ahead and that did not leave
     */
    public static int size(int unwritten, int writtenAhead, int running, long itemNanos, long boundNanos) {
        long room = expected(running, itemNanos, boundNanos) - writtenAhead;
        return (int) Math.max(0, Math.min(unwritten, room));
    }

    /**
     * Whether a run that leaves with its start written ahead asks for the next starts: once those written ahead fell
     * below half of what leaves within the bound. Never when runs leave one at a time: each writes its own.
     */
    public static boolean refill(int unwritten, int writtenAhead, int running, long itemNanos, long boundNanos) {
        long expected = expected(running, itemNanos, boundNanos);
        return unwritten > 0 && expected > 1 && writtenAhead * 2L < expected;
    }
}
