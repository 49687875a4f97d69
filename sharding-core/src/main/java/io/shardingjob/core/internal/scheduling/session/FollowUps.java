package io.shardingjob.core.internal.scheduling.session;

import io.shardingjob.core.internal.scheduling.audit.AuditRequests;
import io.shardingjob.core.internal.scheduling.fire.AssignmentWait;

/**
 * What a change in the registry or the connection sets going: the fires waiting for an assignment are woken, the
 * leader reconciles, and the ledger is audited.
 */
public record FollowUps(AssignmentWait waitingFires, Reconciler reconciler, AuditRequests audits) {}
