package io.shardingjob.core.internal.scheduling.session;

/**
 * When a job's periodic check (reconcile, audit, and on the leader the ledger's upkeep) runs: at the same instants for
 * every job of one instance, so that their requests meet in the client's merged multis rather than trickle in one job
 * at a time; at a phase of the instance's own, so that the instances of a cluster do not all check at one instant. A
 * pure function of the wall-clock time, the interval and the instance.
 */
final class ReconcilePhase {

    private ReconcilePhase() {}

    /**
     * How long from now until the instance's next check instant: the instants are the multiples of the interval
     * since the epoch, shifted by the instance's phase.
     *
     * @return between 1 and {@code intervalMillis} milliseconds
     */
    static long delayToNext(long nowMillis, long intervalMillis, String instanceId) {
        if (intervalMillis <= 0) {
            throw new IllegalArgumentException("intervalMillis must be positive: " + intervalMillis);
        }
        long phase = Math.floorMod(instanceId.hashCode(), intervalMillis);
        long sincePhase = Math.floorMod(nowMillis - phase, intervalMillis);
        return intervalMillis - sincePhase;
    }
}
