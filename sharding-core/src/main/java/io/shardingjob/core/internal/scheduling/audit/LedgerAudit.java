package io.shardingjob.core.internal.scheduling.audit;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimWrites;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.LedgerOverview;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.LedgerRules;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.ledger.LiveSessions;
import io.shardingjob.core.internal.ledger.TakeOverRule;
import io.shardingjob.core.internal.scheduling.fire.ClaimsAhead;
import io.shardingjob.core.internal.scheduling.fire.FireRunner;
import io.shardingjob.core.internal.scheduling.fire.ItemEnds;
import io.shardingjob.core.internal.scheduling.fire.ItemHandOff;
import io.shardingjob.core.internal.scheduling.fire.MisfireReports;
import io.shardingjob.core.internal.scheduling.job.AuditDemand;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Owed;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.sharding.Assignment;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * One instance's audit of the ledger for the items it owns now: it runs this session's own claims it lost track of,
 * takes over the orphans of its items (open claims whose session is gone), and makes up the fires of its items that
 * nobody claimed, as the misfire policy says. It reads only the fires after the ledger's watermark (a few in steady
 * state) and runs when something may have left work behind: a new assignment, a reconnect, an item that ended after a
 * fire found it busy (unless this instance knows every fire the item missed: then {@link #makeUp} plans its make-up at
 * once, without a read), and periodically. Its steps are classes of their own: which fires it reads ({@link AuditReads}),
 * the claims it judges by their sessions ({@link AuditTakeOvers}) and the fires nobody claimed ({@link AuditMakeUps}).
 *
 * <p>An audit runs on the job's coordination loop and holds no thread while ZooKeeper answers: each read or write is
 * sent, and the audit goes on on the coordination pool once it is answered. The work it finds runs as {@link AuditWork},
 * on the item executor, where every action is decided again by ZooKeeper.
 */
public final class LedgerAudit {

    private static final Duration LATENESS = LedgerRules.LATENESS;
    private final JobView view;
    private final AuditDemand audits;

    private final Ledger ledger;
    private final Fires firePath;
    private final AuditWork work;
    private final Executor loop;
    private final AuditReads reads;
    private final AuditTakeOvers takeOvers;
    private final AuditMakeUps makeUps;

    /**
     * What an audit uses of the ledger: its reads, the live sessions a take-over trusts, and the claims it takes over or
     * makes up.
     */
    public record Ledger(ClaimWrites claims, LedgerReads reads, LiveSessions sessions) {}

    /**
     * What the audit uses of the fire path: the ends of runs it writes first, the claims made ahead it reviews, which
     * fires were due and how far back a missed one is made up, the reports of missed fires, and the hand-off and the
     * job's code the work it finds runs with.
     */
    public record Fires(
            ItemEnds ends,
            ClaimsAhead ahead,
            DueFires dueFires,
            Duration catchUpHorizon,
            MisfireReports misfires,
            ItemHandOff handOff,
            FireRunner.JobCode code) {}

    private final RunMemory memory;
    private final RunsElsewhere runsElsewhere;

    public LedgerAudit(JobView view, AuditDemand audits, Ledger ledger, Fires fires, RunMemory memory, Executor loop) {
        this.memory = memory;
        this.view = view;
        this.audits = audits;
        this.ledger = ledger;
        this.firePath = fires;
        this.work = new AuditWork(view, audits, ledger, fires.handOff(), memory, fires.code());
        this.loop = loop;
        this.reads = new AuditReads(memory, fires, audits, loop);
        this.takeOvers = new AuditTakeOvers(view, audits, ledger, memory);
        this.makeUps = new AuditMakeUps(view, ledger.claims(), memory, fires.misfires());
        this.runsElsewhere = new RunsElsewhere(ledger.reads(), audits);
    }

    /**
     * @param read the ledger's overview as read a moment ago on this loop (by the keeper), or null to read it now
     * @return done when the audit decided everything and started the work it found
     */
    CompletableFuture<Void> run(@Nullable LedgerOverview read) {
        if (!view.isStarted()) {
            audits.later(LATENESS);
            return CompletableFuture.completedFuture(null);
        }
        // Owed ends first, as soon as the connection is back and before this instance is registered again: until they
        // are written, another instance may take those claims over and run finished items again.
        return firePath.ends()
                .writeOwed()
                .thenComposeAsync(
                        owedWritten -> {
                            if (!owedWritten) {
                                audits.later(LATENESS);
                                return CompletableFuture.completedFuture(null);
                            }
                            JobSnapshot job = view.snapshot();
                            if (!job.available()) {
                                return CompletableFuture.completedFuture(null);
                            }
                            Pass pass = new Pass(job, memory.heldForAudit());
                            return (read != null
                                            ? CompletableFuture.completedFuture(read)
                                            : ledger.reads().overviewAsync())
                                    .thenComposeAsync(pass::recordDue, loop)
                                    .whenComplete((done, failure) -> pass.releaseUnused());
                        },
                        loop);
    }

    /**
     * Makes up, without reading the ledger, the fires that found an item busy here, once its run ended (see {@link
     * AuditMakeUps#planOwed}); false when only an audit's read tells what the item missed.
     */
    boolean makeUp(Owed owed, Instant ranFor) {
        JobSnapshot job = view.snapshot();
        Reservation held = memory.heldForAudit().get(owed.item());
        Pass pass = new Pass(job, held == null ? Map.of() : Map.of(owed.item(), held));
        if (!view.isStarted() || !job.available() || !makeUps.planOwed(pass, owed, ranFor)) {
            return false;
        }
        pass.startWork().whenComplete((done, failure) -> pass.releaseUnused());
        return true;
    }

    /**
     * One audit's state, from its first read to the work it starts, which its steps read and add to; they run one after
     * the other, all on the job as it stood when the audit began and at the moment it began at (taken once, so that
     * every step decides alike).
     */
    final class Pass {

        final JobSnapshot job;
        final JobConfiguration config;
        final String me = view.instanceId();

        /** Without a job (or disabled) this instance runs nothing, but it still releases what earlier sessions left. */
        final boolean runsItems;

        final long session;
        final Instant now = view.now();
        final Instant horizon = now.minus(firePath.catchUpHorizon());
        final Assignment assignment;

        /** The items this instance owns and may run, but the disabled ones. */
        final Set<Integer> owned;

        final DueRule due = firePath.dueFires().rule();

        /** Fires whose trigger here won every item this instance owns under this assignment and session: not read. */
        final Set<Instant> whole = new HashSet<>();

        /** The fires read in which something may be missing: none that waits for an upstream or that it abandoned. */
        List<FireView> views = List.of();

        /** How each fire read was asked for: every run of its items gets its job parameter. */
        private final Map<Instant, FireOrigin> origins = new HashMap<>();

        final List<Claim> claims = new ArrayList<>();

        /** Items kept reserved for this audit when their run ended (see {@link RunMemory#endRun}). */
        final Map<Integer, Reservation> held;

        /** The work the steps found, per item, and their writes it waits for. */
        final Map<Integer, List<AuditWork.Step>> steps = new TreeMap<>();

        final List<CompletableFuture<?>> writes = new ArrayList<>();

        Pass(JobSnapshot job, Map<Integer, Reservation> held) {
            this.job = job;
            this.held = held;
            config = job.configuration();
            runsItems = work.hasJob() && !config.disabled() && !job.leftOut();
            session = job.sessionId();
            assignment = job.assignment().assignment();
            owned = new HashSet<>(job.owned());
            owned.removeAll(job.disabledItems());
        }

        CompletableFuture<Void> recordDue(LedgerOverview overview) {
            return reads.toRead(overview, this).thenCompose(this::read);
        }

        private CompletableFuture<Void> read(Set<Instant> fires) {
            if (fires.isEmpty()) {
                memory.audited(assignment.epoch(), owned, Map.of());
                return CompletableFuture.completedFuture(null);
            }
            return ledger.reads().readAsync(fires).thenComposeAsync(this::releaseEarlierSessions, loop);
        }

        private CompletableFuture<Void> releaseEarlierSessions(List<FireView> read) {
            // A node created ahead for a fire the schedule no longer has is no fire: nothing in it is made up.
            List<FireView> fires = read.stream()
                    .filter(view -> !view.isAheadOnly() || firePath.dueFires().cameDue(view.fireTime()))
                    .toList();
            fires.forEach(view -> {
                claims.addAll(view.claims().values());
                origins.put(view.fireTime(), view.origin());
            });
            // Nor is anything missing in a fire that waits for an upstream, or that its upstream abandoned: nothing of
            // it is due (yet). The claims an item-wise upstream handed on in it are taken over all the same.
            views = fires.stream()
                    .filter(view ->
                            !view.origin().isAwaiting() && !view.origin().isAbandoned())
                    .toList();
            boolean foreignOpenClaim = anyForeignOpen();
            return takeOvers
                    .releaseEarlierSessions(this)
                    .thenCompose(released -> foreignOpenClaim
                            ? ledger.sessions().liveInstancesAsync()
                            : CompletableFuture.completedFuture(Map.<String, Long>of()))
                    .thenComposeAsync(live -> decide(foreignOpenClaim, live), loop);
        }

        /**
         * Whether a claim of its items is open under another session, or given up: only then are the live instances
         * read, and orphans looked for.
         */
        private boolean anyForeignOpen() {
            return claims.stream()
                    .anyMatch(claim -> owned.contains(claim.item())
                            && claim.state().isOpen()
                            && (claim.sessionId() != session || TakeOverRule.isGivenUp(claim)));
        }

        private CompletableFuture<Void> decide(boolean foreignOpenClaim, Map<String, Long> live) {
            Map<Integer, Claim> runs = TakeOverRule.runsElsewhere(claims, Set.copyOf(live.values()), session, owned);
            Set<Integer> elsewhere = runs.keySet();
            memory.audited(assignment.epoch(), owned, runs);
            // Looked at again once the other instance's run has ended: its end writes the claim, which is watched.
            runs.values().forEach(runsElsewhere::watch);
            if (!runsItems) {
                return CompletableFuture.completedFuture(null);
            }
            takeOvers.plan(this, foreignOpenClaim ? live : null, elsewhere);
            Set<Integer> candidates = new HashSet<>(assignment.itemsOf(me));
            candidates.removeAll(elsewhere);
            makeUps.plan(this, candidates);
            return startWork();
        }

        /** Starts the work the steps found once the writes they asked for are answered. */
        CompletableFuture<Void> startWork() {
            return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                    .thenRun(() -> work.start(steps, session, takeHeld(steps.keySet())));
        }

        /** The reservations held for this audit of the items it found work for: that work runs under them. */
        private Map<Integer, Reservation> takeHeld(Set<Integer> items) {
            Map<Integer, Reservation> taken = new HashMap<>();
            held.forEach((item, reservation) -> {
                if (items.contains(item) && memory.takeHeld(item, reservation)) {
                    taken.put(item, reservation);
                }
            });
            return taken;
        }

        void releaseUnused() {
            memory.releaseHeld(held);
        }

        FireOrigin originOf(Instant fireTime) {
            return origins.getOrDefault(fireTime, FireOrigin.SCHEDULED);
        }

        /** Whether the audit may look at a fire now (see {@link AuditReads#isLate}). */
        boolean isLate(Instant fireTime) {
            return reads.isLate(fireTime, now);
        }
    }
}
