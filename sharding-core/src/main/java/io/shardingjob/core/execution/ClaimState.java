package io.shardingjob.core.execution;

/** Where the claim of one item of one fire stands. */
public enum ClaimState {
    /**
     * Its owner session holds it and has not started it yet: made ahead of its fire, or waiting for a thread. Its run
     * starts only once its owner wrote it {@link #RUNNING}; an owner that dies before has started nothing, so whoever
     * owns the item next runs it as the fire's own run, with {@code failover} on or off.
     */
    RESERVED,
    /** Its owner session started it (or its retries): recorded before the item's code ran. */
    RUNNING,
    /** It completed. */
    DONE,
    /** It failed after its retries. */
    FAILED,
    /** Its owner gave it up unfinished (stopping, or cut off): anyone who owns the item may take it over at once. */
    RELEASED,
    /**
     * Made ahead of its fire by an owner that gave it up before it started (the item moved, or the instance stopped),
     * or a failed run reopened by an operator's re-run of its fire (source {@code RETRY}): the item's owner runs it as
     * the fire's own run, failover or not, since nothing of this run started.
     */
    HANDED_ON,
    /** A missed fire folded into a later run of the same item, as the misfire policy {@code once} says. */
    COALESCED,
    /** A fire the item does not run for: disabled, or missed under the misfire policy {@code skip}. */
    SKIPPED;

    /** Whether the item still has to run for the fire: an open claim is taken over when its owner is gone. */
    public boolean isOpen() {
        return this == RESERVED || this == RUNNING || this == RELEASED || this == HANDED_ON;
    }

    /** Whether its owner session still holds it, started or about to start: nobody else may run its item meanwhile. */
    public boolean isHeld() {
        return this == RESERVED || this == RUNNING;
    }

    /** Whether nothing of its run can have started: it is the fire's own run of the item whoever runs it. */
    public boolean neverStarted() {
        return this == RESERVED || this == HANDED_ON;
    }
}
