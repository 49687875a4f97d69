package io.shardingjob.core.execution;

import java.time.Instant;
import java.util.List;

/**
 * Told when items of a fire did not run at their fire time, from the decisions the coordination already takes about
 * them (it never looks for misfires of its own): an alerting hook. Each instance reports for the items it decides
 * about, so a fire the whole cluster missed is reported by every instance that owns items of it once it is back, each
 * with its items.
 *
 * <ul>
 *   <li>{@link #fireMissed}: the fire came due but nobody claimed these items within the lateness bound (every instance
 *       was down or cut off from ZooKeeper, say); reported by the items' owner when its ledger audit applies the
 *       misfire policy to them (made up, coalesced into a later make-up, or skipped);
 *   <li>{@link #fireOverran}: the fire came due while these items still ran from an earlier fire (here, or on another
 *       instance after a reshard), so they do not start for it now; reported by the fire that finds them busy. Their
 *       make-up when they end follows the misfire policy and is not reported again as missed.
 * </ul>
 *
 * Each item of a fire is reported at most once by an instance (twice only across a restart of it). Called on the job's
 * fire or coordination thread, which other jobs share: return at once and hand slow work (a network call) to a thread
 * of your own. An exception is logged and ignored.
 */
public interface MisfireListener {

    /**
     * Items of a fire were due but unclaimed after the lateness bound.
     *
     * @param items the items, in order
     * @param detail what the misfire policy did with them, for people
     */
    default void fireMissed(String jobName, Instant fireTime, List<Integer> items, String detail) {}

    /**
     * A fire came due while items still ran from an earlier one.
     *
     * @param items the items still running, in order
     * @param detail where they run and what happens to this fire of them, for people
     */
    default void fireOverran(String jobName, Instant fireTime, List<Integer> items, String detail) {}
}
