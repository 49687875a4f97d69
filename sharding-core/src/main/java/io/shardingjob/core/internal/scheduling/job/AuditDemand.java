package io.shardingjob.core.internal.scheduling.job;

import java.time.Duration;
import java.time.Instant;

/**
 * How a stage asks for an audit of this instance's items: a fire that met a busy item, a claim write that failed, an
 * audit that must look again once fires are late. Requests are coalesced: asking often costs one audit.
 */
public interface AuditDemand {

    /** An audit soon, once however often it is asked meanwhile. */
    void soon();

    /** An audit after the delay, scheduled once however often it is asked meanwhile. */
    void later(Duration delay);

    /**
     * An item's run here ended, and the item is owed the fires that found it busy: made up at once when this instance
     * knows every fire it missed ({@link Owed#knowsEveryMissedFire}), else by an audit soon.
     *
     * @param ranFor the fire of the run that ended
     */
    void owed(Owed owed, Instant ranFor);
}
