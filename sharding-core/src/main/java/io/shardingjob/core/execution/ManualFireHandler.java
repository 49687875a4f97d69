package io.shardingjob.core.execution;

import java.time.Instant;

/**
 * Starts this instance's items of a fire an operator asked for, on whichever instance (see
 * {@code JobCoordinator.trigger}): every instance of the job is told of the fire and starts its own items of it at
 * once, so that the whole fire runs promptly, each item on its owner.
 *
 * <p>By default a coordinator starts the fire itself, with {@code fireAsync(ExecutionSource.MANUAL, fireTime)} on the
 * item executor given to its builder. A program that runs its fires through a path of its own (its pools, listeners,
 * metrics) gives a handler that hands the fire to that path, with source {@link ExecutionSource#MANUAL} and this fire
 * time: which items run, and with which job parameter, is the fire ledger's to say.
 *
 * <p>Called on the job's coordination thread (or on the thread that asked for the fire, for the instance that asked):
 * the handler must hand the fire on and return at once, never wait for it. It is called at most once per fire on an
 * instance; a fire it misses (not told, refused, failed) is made up by the owners' audits, late.
 */
@FunctionalInterface
public interface ManualFireHandler {

    /** @param fireTime the fire's time, the ledger's key for it: pass it on unchanged */
    void fire(Instant fireTime);
}
