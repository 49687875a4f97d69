package io.shardingjob.core.execution;

/** Where the claim of one item of one fire stands. */
public enum ClaimState {
    /** Its owner session runs it (or its retries). */
    RUNNING,
    /** It completed. */
    DONE,
    /** It failed after its retries. */
    FAILED,
    /** Its owner gave it up unfinished (stopping, or cut off): anyone who owns the item may take it over at once. */
    RELEASED,
    /**
     * Made ahead of its fire by an owner that gave it up before it started (the item moved, or the instance stopped):
     * the item's owner runs it as the fire's own run, failover or not, since nothing of it ran.
     */
    HANDED_ON,
    /** A missed fire folded into a later run of the same item, as the misfire policy {@code once} says. */
    COALESCED,
    /** A fire the item does not run for: disabled, or missed under the misfire policy {@code skip}. */
    SKIPPED;

    /** Whether the item still has to run for the fire: an open claim is taken over when its owner is gone. */
    public boolean isOpen() {
        return this == RUNNING || this == RELEASED || this == HANDED_ON;
    }
}
