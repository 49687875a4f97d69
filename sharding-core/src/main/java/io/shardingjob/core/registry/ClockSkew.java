package io.shardingjob.core.registry;

import java.time.Duration;
import java.time.Instant;

/**
 * How far this instance's wall clock is from ZooKeeper's, as one write showed it. The server stamps every write with
 * its own clock (the leader's, in an ensemble) as the node's {@code mtime}; the stamp was taken between the moment this
 * instance sent the write and the moment the answer came back, so it is compared with the midpoint of the two, and the
 * true skew lies within half the round trip (plus a millisecond for the clocks' resolution) of the estimate.
 *
 * <p>A skewed clock does not break the promise that every item of every fire runs once: fires are keyed in the fire
 * ledger by their scheduled time, and no instance trusts another's clock to decide who runs what. It does make this
 * instance fire early or late, and its times (execution log, alerts, {@code registeredAt}) disagree with the others'.
 *
 * @param skew this instance's clock minus ZooKeeper's: positive when this instance is ahead
 * @param uncertainty how far from {@code skew} the true skew may be: half the round trip, plus 1 ms
 * @param measuredAt when the answer came back, on this instance's clock
 * @param bound the largest skew tolerated ({@code sharding.zookeeper.max-clock-skew})
 */
public record ClockSkew(Duration skew, Duration uncertainty, Instant measuredAt, Duration bound) {

    /**
     * The skew shown by one write.
     *
     * @param sentAtMillis this instance's wall clock when the write was sent
     * @param roundTripNanos from sending to the answer, on the monotonic clock ({@link System#nanoTime()})
     * @param serverMillis the {@code mtime} (or {@code ctime}) the server gave the written node
     * @param bound the largest skew tolerated
     */
    public static ClockSkew measure(long sentAtMillis, long roundTripNanos, long serverMillis, Duration bound) {
        if (roundTripNanos < 0) {
            throw new IllegalArgumentException("The round trip must not be negative, was " + roundTripNanos + " ns");
        }
        long halfTripMillis = (roundTripNanos + 1_999_999L) / 2_000_000L;
        long midpointMillis = sentAtMillis + roundTripNanos / 2_000_000L;
        return new ClockSkew(
                Duration.ofMillis(midpointMillis - serverMillis),
                Duration.ofMillis(halfTripMillis + 1),
                Instant.ofEpochMilli(sentAtMillis + roundTripNanos / 1_000_000L),
                bound);
    }

    /** For people: {@code 20003 ms ahead of ZooKeeper's (± 2 ms)}. */
    public String describe() {
        return skew.abs().toMillis() + " ms " + (skew.isNegative() ? "behind" : "ahead of") + " ZooKeeper's (± "
                + uncertainty.toMillis() + " ms)";
    }

    /**
     * Whether the skew is certainly beyond the bound: even the end of the uncertainty nearest zero is. A slow round trip
     * widens the uncertainty, so it can hide a skew but never raise a false one.
     */
    public boolean exceeded() {
        return skew.abs().minus(uncertainty).compareTo(bound) > 0;
    }
}
