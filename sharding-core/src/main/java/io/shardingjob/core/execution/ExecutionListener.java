package io.shardingjob.core.execution;

/**
 * Told about every item run of a job on this instance, whatever started it (a fire, a misfire, a failover). Called on
 * the thread that ran the item; implementations must be quick and must not throw.
 */
@FunctionalInterface
public interface ExecutionListener {

    void itemFinished(ItemResult result);
}
