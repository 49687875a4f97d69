package io.shardingjob.core.execution;

/** Why an item ran. */
public enum ExecutionSource {
    /** A scheduled fire. */
    NORMAL,
    /** Once more after a fire that arrived while the item still ran. */
    MISFIRE,
    /** On another instance, because its owner died or left before it completed. */
    FAILOVER,
    /** An operator asked for a fire now. */
    MANUAL,
    /** Again after a failure, with the context it was first fired with. */
    RETRY,
    /** Its job follows others, and their fires at the same time completed (the job's {@code after}). */
    UPSTREAM
}
