package io.shardingjob.boot;

import io.shardingjob.core.execution.FireListener;
import java.util.Set;

/**
 * Told before and after this instance runs its items of a fire of a job; declare it as a bean (it is a Spring bean like
 * any other, with injection and advice, unlike Elastic-Job's listeners, which are instantiated by class name). Not
 * called for a fire in which this instance runs nothing. Called on the fire's thread; an exception is logged and
 * ignored.
 */
public interface ShardedJobFireListener extends FireListener {

    /** The names of the jobs this listener is for; empty (the default) means every job. */
    default Set<String> jobs() {
        return Set.of();
    }
}
