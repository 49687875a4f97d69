package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules.Slot;
import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.ledger.TakeOverRule;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The take-over step of a {@link LedgerAudit}: the claims it read of this instance's items, judged by the session that
 * holds them. This session's own claims it lost track of run again; those an earlier session of this instance left are
 * released to the item's owner; the orphans of a session that is gone are taken over, or recorded as failed when
 * failover is off and their run started. It is apart from the make-ups because it judges claims that exist, by their
 * sessions, where those judge fires nobody claimed; every take-over is a versioned write that ZooKeeper decides again.
 */
final class AuditTakeOvers {

    /** The audit's own logger: its decisions read as the audit's, as they did when this step was part of it. */
    private static final Logger log = LoggerFactory.getLogger(LedgerAudit.class);

    private final JobView view;
    private final AuditDemand audits;
    private final LedgerAudit.Ledger ledger;
    private final RunMemory memory;

    AuditTakeOvers(JobView view, AuditDemand audits, LedgerAudit.Ledger ledger, RunMemory memory) {
        this.memory = memory;
        this.view = view;
        this.audits = audits;
        this.ledger = ledger;
    }

    /** Releases the claims an earlier session of this instance left, unfinished as far as this process knows. */
    CompletableFuture<Void> releaseEarlierSessions(LedgerAudit.Pass audit) {
        String me = audit.me;
        Set<Slot> known = new HashSet<>(memory.inFlight());
        memory.unwrittenSlots().forEach(known::add);
        List<CompletableFuture<?>> releases = new ArrayList<>();
        for (Claim lost : TakeOverRule.previousSessionOwn(audit.claims, me, audit.session, known)) {
            // Left by an earlier session of this instance, unfinished as far as this process knows: the owner of
            // the item takes it over once it is released. Nobody else does while this instance is registered.
            log.info(
                    "Job {} on {}: releasing item {} of the fire at {}, left by an earlier session",
                    view.jobName(),
                    me,
                    lost.item(),
                    lost.fireTime());
            Slot slot = new Slot(lost.item(), lost.fireTime());
            ClaimState released = RunStart.releasedAs(lost, memory.neverBegan(slot));
            releases.add(ledger.claims()
                    .takeOverAsync(lost, lost.with(released, audit.now))
                    .thenAccept(written -> memory.releasedUnbegun(slot)));
        }
        return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new));
    }

    /**
     * Adds to an audit's steps this session's own claims it lost track of and the orphans it takes over, and to its
     * writes the orphans recorded as failed.
     *
     * @param live the sessions of the live instances, read when a claim of its items is open under another session or
     *     given up; null when none is, and then there is no orphan to look for
     * @param elsewhere the items another session runs now
     */
    void plan(LedgerAudit.Pass audit, @Nullable Map<String, Long> live, Set<Integer> elsewhere) {
        for (Claim own : TakeOverRule.strandedOwn(audit.claims, audit.session, memory.inFlight())) {
            // One item never runs on two instances at once: a claim of its own waits for another session's run too.
            if (!memory.isUnwritten(new Slot(own.item(), own.fireTime())) && !elsewhere.contains(own.item())) {
                audit.steps
                        .computeIfAbsent(own.item(), item -> new ArrayList<>())
                        .add(new AuditWork.Step(own, null, List.of(), audit.originOf(own.fireTime())));
            }
        }
        Duration undecided = view.absentOwnersUndecidedFor(audit.now);
        if (!undecided.isZero()) {
            // Looked at again once owners that are still reconnecting had their time to register again.
            audits.later(undecided);
        }
        if (live == null) {
            return;
        }
        for (Claim orphan : TakeOverRule.toTakeOver(audit.claims, live, audit.owned, undecided.isZero())) {
            if (memory.isUnwritten(new Slot(orphan.item(), orphan.fireTime())) || elsewhere.contains(orphan.item())) {
                continue;
            }
            if (TakeOverRule.runsOrphan(orphan, audit.config.failover())) {
                audit.steps
                        .computeIfAbsent(orphan.item(), item -> new ArrayList<>())
                        .add(new AuditWork.Step(null, orphan, List.of(), audit.originOf(orphan.fireTime())));
            } else {
                // Without failover, a dead owner's run that started is not repeated: recorded as failed.
                audit.writes.add(ledger.claims().takeOverAsync(orphan, orphan.with(ClaimState.FAILED, audit.now)));
            }
        }
    }
}
