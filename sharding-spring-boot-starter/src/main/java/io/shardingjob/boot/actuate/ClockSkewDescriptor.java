package io.shardingjob.boot.actuate;

import io.shardingjob.core.registry.ClockSkew;

/**
 * This instance's clock against ZooKeeper's, from the last measurement: where an operator reads whether this instance's
 * fire times can be trusted ({@code exceeded}) before looking for missed or doubled fires.
 *
 * @param skewMillis this instance's clock minus ZooKeeper's: positive when this instance is ahead
 * @param uncertaintyMillis how far from {@code skewMillis} the true skew may be (half the measuring round trip)
 * @param maxClockSkewMillis {@code sharding.zookeeper.max-clock-skew}
 * @param exceeded whether the skew is certainly beyond the bound
 * @param measuredAt when it was measured, on this instance's clock
 */
public record ClockSkewDescriptor(
        long skewMillis, long uncertaintyMillis, long maxClockSkewMillis, boolean exceeded, String measuredAt) {

    static ClockSkewDescriptor of(ClockSkew skew) {
        return new ClockSkewDescriptor(
                skew.skew().toMillis(),
                skew.uncertainty().toMillis(),
                skew.bound().toMillis(),
                skew.exceeded(),
                skew.measuredAt().toString());
    }
}
