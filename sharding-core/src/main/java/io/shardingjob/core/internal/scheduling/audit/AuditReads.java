package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.LedgerOverview;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

/**
 * The first step of a {@link LedgerAudit}: which fires of the ledger it reads. It records the due fires nobody claimed,
 * so that every owner's audit sees them, and leaves out what this instance knows holds nothing for the audit (fires to
 * come, fires before the job's definition, fires whose every owned item its trigger won). It is apart from the audit's
 * decisions because those fires are most of an audit's reads, and they are told apart from this instance's memory of
 * its fires alone, before a claim is read; and because it owns {@link #isLate}, the one judgement of when an audit may
 * look at a fire without racing its trigger.
 */
final class AuditReads {

    private static final Duration LATENESS = LedgerRules.LATENESS;
    private final LedgerAudit.Fires firePath;
    private final AuditDemand audits;
    private final Executor loop;
    private final RunMemory memory;

    AuditReads(RunMemory memory, LedgerAudit.Fires firePath, AuditDemand audits, Executor loop) {
        this.memory = memory;
        this.firePath = firePath;
        this.audits = audits;
        this.loop = loop;
    }

    /**
     * Records the due fires nobody claimed, then finds the fires after the watermark that may hold work, and adds to the
     * audit's {@code whole} the fires claimed whole here (see {@link RunMemory#isWhole}), which are not read.
     *
     * @return the fires to read, on the coordination loop
     */
    CompletableFuture<Set<Instant>> toRead(LedgerOverview overview, LedgerAudit.Pass audit) {
        Instant now = audit.now;
        DueRule due = audit.due;
        Instant watermark = overview.watermark();
        memory.forgetThrough(watermark);
        firePath.misfires().forgetThrough(watermark);
        firePath.ahead().review(now);
        // Fires to come hold only claims made ahead, which nobody runs, takes over or releases before their fire.
        // Fires before the job's (re)definition are an earlier job's: never read, never made up.
        List<Instant> recorded = overview.fires().stream()
                .filter(fireTime -> !fireTime.isAfter(now) && !fireTime.isBefore(due.start()))
                .toList();
        // After the watermark, and the fires it passed with a claim still open (a run that outlived the retention).
        Set<Instant> fires = new TreeSet<>(overview.toRead(now));
        fires.removeIf(fireTime -> fireTime.isBefore(due.start()));
        // Due, but nobody claimed anything in them: recorded so that every owner's audit sees them. The schedule's
        // fires before the latest late one this instance fired were missed here (it fires its schedule in order),
        // such as a job's first fires before its instances started it: recorded now, not at the keeper's next pass
        // (which records the schedule's fires before a settled one), so that this instance makes its items up now.
        Instant firedHere = memory.seenFires().stream()
                .filter(fireTime -> fireTime.isAfter(watermark) && audit.isLate(fireTime))
                .max(Instant::compareTo)
                .orElse(watermark);
        return firePath.dueFires()
                .recordLate(watermark, recorded, audit::isLate, firedHere, audit.horizon)
                .thenApplyAsync(
                        missed -> {
                            fires.addAll(missed);
                            return withoutWhole(watermark, fires, overview.stillOpen(), audit);
                        },
                        loop);
    }

    private Set<Instant> withoutWhole(
            Instant watermark, Set<Instant> fires, Set<Instant> stillOpen, LedgerAudit.Pass audit) {
        long epoch = audit.assignment.epoch();
        // A whole fire holds nothing for this audit: it is not read, nor looked at again (with a thousand items a
        // fire, most of an audit's reads). A still-open one is read all the same: an operator's re-run may have
        // reopened its claims since this instance's trigger won them.
        fires.stream()
                .filter(fireTime -> !stillOpen.contains(fireTime))
                .filter(fireTime -> memory.isWhole(fireTime, epoch, audit.session))
                .forEach(audit.whole::add);
        fires.removeAll(audit.whole);
        // A fire this instance saw that is not late yet is looked at again once it is, not at the next periodic
        // audit.
        Stream.concat(fires.stream(), memory.seenFires().stream())
                .filter(fireTime -> fireTime.isAfter(watermark)
                        && !audit.isLate(fireTime)
                        && !memory.isWhole(fireTime, epoch, audit.session))
                .min(Instant::compareTo)
                .ifPresent(next -> audits.later(Duration.between(audit.now, next.plus(LATENESS))));
        return fires;
    }

    /**
     * Whether an audit may look at a fire: this instance planned it, or it is later than {@link LedgerRules#LATENESS},
     * so that its owners had their time to claim its items.
     */
    boolean isLate(Instant fireTime, Instant now) {
        return memory.hasPlanned(fireTime) || fireTime.isBefore(now.minus(LATENESS));
    }
}
