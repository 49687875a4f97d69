package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import java.time.Duration;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The runs of this instance's items still going on other instances (an item handed over by a reshard while its old
 * owner runs it): the audit looks again once such a run has ended, told by a watch on its claim, which the run's end
 * writes, rather than by a timer. One watcher for the job, so that a claim watched by audit after audit holds one watch
 * on the server.
 */
final class RunsElsewhere {

    /** How soon a run elsewhere whose claim could not be watched is looked at again. */
    private static final Duration RECHECK_UNWATCHED = Duration.ofSeconds(1);

    private final LedgerReads reads;
    private final AuditDemand audits;
    private final Watcher changed = this::changed;

    RunsElsewhere(LedgerReads reads, AuditDemand audits) {
        this.reads = reads;
        this.audits = audits;
    }

    /** Asks for an audit when the claim is written or goes, or at once when it did since it was read. */
    void watch(Claim run) {
        reads.watchAsync(run, changed).whenComplete((asRead, failure) -> {
            if (failure != null) {
                audits.later(RECHECK_UNWATCHED);
            } else if (!asRead) {
                audits.soon();
            }
        });
    }

    /** The session's end tells every watcher too; the audits that follow it are asked for otherwise. */
    private void changed(WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.None) {
            audits.soon();
        }
    }
}
