/**
 * A fire's items on this instance, from the trigger to the recorded end: planned (reserved, checked against the last
 * audit), claimed in the ledger (or taken from the claims made ahead), started, ended and recorded in a group commit,
 * or handed on or skipped. Asks for audits through {@code AuditDemand}; never calls the audit or the session.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling.fire;

import org.jspecify.annotations.NullMarked;
