package io.shardingjob.core.internal.scheduling.job;

import java.time.Duration;

/**
 * How a stage asks for an audit of this instance's items: a fire that met a busy item, a claim write that failed, an
 * audit that must look again once fires are late. Requests are coalesced: asking often costs one audit.
 */
public interface AuditDemand {

    /** An audit soon, once however often it is asked meanwhile. */
    void soon();

    /** An audit after the delay, scheduled once however often it is asked meanwhile. */
    void later(Duration delay);
}
