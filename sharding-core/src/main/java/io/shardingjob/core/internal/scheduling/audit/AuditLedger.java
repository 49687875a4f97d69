package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.LiveSessions;

/**
 * What an audit uses of the ledger: its reads, the live sessions a take-over trusts, and the claims it takes over or
 * makes up.
 */
public record AuditLedger(ClaimWrites claims, LedgerReads reads, LiveSessions sessions) {}
