package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.LedgerOverview;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.internal.scheduling.fire.ClaimsAhead;
import io.shardingjob.core.internal.scheduling.fire.MisfireReports;
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
    private final MisfireReports misfires;
    private final ClaimsAhead ahead;
    private final DueFires dueFires;
    private final AuditDemand audits;
    private final Executor loop;
    private final RunMemory memory;

    AuditReads(
            RunMemory memory,
            MisfireReports misfires,
            ClaimsAhead ahead,
            DueFires dueFires,
            AuditDemand audits,
            Executor loop) {
        this.memory = memory;
        this.misfires = misfires;
        this.ahead = ahead;
        this.dueFires = dueFires;
        this.audits = audits;
        this.loop = loop;
    }

    /**
     * Records the due fires nobody claimed, then finds the fires after the watermark that may hold work.
     *
     * @param whole gets the fires claimed whole here (see {@link RunMemory#isWhole}): not read
     * @return the fires to read, on the coordination loop
     */
    CompletableFuture<Set<Instant>> toRead(
            LedgerOverview overview,
            Instant now,
            Instant horizon,
            DueRule due,
            long epoch,
            long session,
            Set<Instant> whole) {
        Instant watermark = overview.watermark();
        memory.forgetThrough(watermark);
        misfires.forgetThrough(watermark);
        ahead.review(now);
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
                .filter(fireTime -> fireTime.isAfter(watermark) && isLate(fireTime, now))
                .max(Instant::compareTo)
                .orElse(watermark);
        return dueFires.recordLate(watermark, recorded, fireTime -> isLate(fireTime, now), firedHere, horizon)
                .thenApplyAsync(
                        missed -> {
                            fires.addAll(missed);
                            return withoutWhole(watermark, fires, overview.stillOpen(), now, epoch, session, whole);
                        },
                        loop);
    }

    private Set<Instant> withoutWhole(
            Instant watermark,
            Set<Instant> fires,
            Set<Instant> stillOpen,
            Instant now,
            long epoch,
            long session,
            Set<Instant> whole) {
        // A whole fire holds nothing for this audit: it is not read, nor looked at again (with a thousand items a
        // fire, most of an audit's reads). A still-open one is read all the same: an operator's re-run may have
        // reopened its claims since this instance's trigger won them.
        fires.stream()
                .filter(fireTime -> !stillOpen.contains(fireTime))
                .filter(fireTime -> memory.isWhole(fireTime, epoch, session))
                .forEach(whole::add);
        fires.removeAll(whole);
        // A fire this instance saw that is not late yet is looked at again once it is, not at the next periodic
        // audit.
        Stream.concat(fires.stream(), memory.seenFires().stream())
                .filter(fireTime -> fireTime.isAfter(watermark)
                        && !isLate(fireTime, now)
                        && !memory.isWhole(fireTime, epoch, session))
                .min(Instant::compareTo)
                .ifPresent(next -> audits.later(Duration.between(now, next.plus(LATENESS))));
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
