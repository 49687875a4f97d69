package io.shardingjob.core.execution;

/**
 * Told once per fire across the whole cluster, on one instance, when every item of the fire has ended wherever it ran
 * (its owner, or the instance that took it over), retries included. Called at least once, twice only when the caller dies between the call and its record in the fire ledger.
 */
@FunctionalInterface
public interface FireCompletionListener {

    void fireCompleted(FireCompletion completion);
}
