package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.AssignmentGuard;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.DueFires;
import io.shardingjob.core.internal.ledger.DueRule;
import io.shardingjob.core.internal.ledger.FireOrigin;
import io.shardingjob.core.internal.ledger.GroupCommit;
import io.shardingjob.core.internal.ledger.LedgerReads;
import io.shardingjob.core.internal.ledger.RunStart;
import io.shardingjob.core.internal.ledger.StartBatch;
import io.shardingjob.core.internal.requests.Answers;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.JobView;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import io.shardingjob.core.internal.scheduling.job.RunMemory;
import io.shardingjob.core.internal.sharding.ShardingService;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The writes that start runs, for one job on this instance: what holds here for {@link RunStart}, and the write of a
 * run's start, for its runner to queue, with the starts of the runs of its fire that leave the queue soon after it
 * queued ahead of it ({@link StartBatch}, at the pace its runner measured, {@link ItemPace}), or alone for a run handed on alone.
 */
final class RunStarts {

    private final JobView view;
    private final LedgerReads reads;
    private final GroupCommit groupCommit;
    private final RunMemory memory;
    private final DueFires dueFires;
    private final ItemPace pace;
    private final Clock clock;

    RunStarts(
            JobView view,
            LedgerReads reads,
            GroupCommit groupCommit,
            RunMemory memory,
            DueFires dueFires,
            ItemPace pace,
            Clock clock) {
        this.view = view;
        this.reads = reads;
        this.groupCommit = groupCommit;
        this.memory = memory;
        this.dueFires = dueFires;
        this.pace = pace;
        this.clock = clock;
    }

    /** What came of a start write. */
    enum Began {
        /** Written: the run starts. */
        STARTED,
        /** Refused: the claim was taken over. */
        LOST,
        /** Refused: a newer assignment was written than the one the start was decided under. */
        MOVED,
        /**
         * Written, but the run was abandoned while the write was on its way (the instance stops, or interrupted its
         * runs): it never began, and does not begin now. Its claim is handed on at the version written.
         */
        ABANDONED,
        /** Not answered: whether it was written is unknown, and this session's audit decides again. */
        UNKNOWN,
        /** The rule refused the run before any write, or the start was not written ahead of it. */
        NOT_ASKED
    }

    /**
     * What holds for this instance now under {@code assignment}, for {@link RunStart}, with whether the audits cleared
     * each of {@code items} ({@link RunMemory#mayStart}, the same rule a fire plans with); a retry asks of no item: it
     * continues a run that started.
     *
     * @param origin how the runs' fire was asked for: a fire of the schedule is due only on its cron
     */
    RunStart.Here here(JobSnapshot now, Collection<Integer> items, FireOrigin origin) {
        long epoch = now.assignment().assignment().epoch();
        Set<Integer> contested = new HashSet<>();
        for (int item : items) {
            if (now.owned().contains(item) && !memory.mayStart(item, epoch, reads::stillRuns)) {
                contested.add(item);
            }
        }
        DueRule due = dueFires.rule();
        return new RunStart.Here(
                now.sessionId(),
                now.available(),
                now.configuration().disabled(),
                now.runnable(),
                contested,
                now.disabledItems(),
                slot -> due.judge(slot, origin));
    }

    /**
     * A start refused because an assignment was written after the one it was decided under: decided again under the
     * assignment now in force, read from ZooKeeper, when exactly one was written since (no other owner can have come
     * and gone in between) and the rule still lets it start; handed on otherwise. A reshard that leaves the item here
     * so does not move its run out of its fire.
     */
    Began beginUnderNext(ItemRun run, JobSnapshot decided) {
        ShardingService.Versioned next;
        try {
            next = view.readVersionedAssignment();
        } catch (RuntimeException unreadable) {
            return Began.MOVED;
        }
        boolean onlyOneSince = next.version() == decided.assignment().version() + 1;
        if (!onlyOneSince
                || RunStart.decide(
                                run.held(),
                                run.isAbandoned(),
                                here(decided.under(next, view.instanceId()), List.of(run.item()), run.origin()))
                        != RunStart.Verdict.START) {
            return Began.MOVED;
        }
        return began(run, groupCommit.queue(startOf(run, true, decided.under(next, view.instanceId()))));
    }

    /**
     * The write of the run's start at the version held, for its runner to queue; the starts of the runs of its fire
     * expected to leave the queue soon after it ({@link StartBatch}) are queued ahead of it first, to go with it.
     *
     * @param lastToLeave whether no other run of its fire is still to leave the queue: its start goes at once, whereas
     *     one that writes no other start lingers for the starts of the runs that leave with it
     */
    GroupCommit.Write startOf(ItemRun run, boolean lastToLeave, JobSnapshot now) {
        FireStarts starts = run.starts();
        int others =
                starts == null || !StartBatch.writesAhead(now.configuration().failover())
                        ? 0
                        : StartBatch.size(
                                        starts.untaken() + 1,
                                        starts.writtenAhead(),
                                        pace.running(),
                                        pace.itemNanos(),
                                        StartBatch.AHEAD.toNanos())
                                - 1;
        boolean withOthers = others > 0 && writeAhead(starts, others, now) > 0;
        return GroupCommit.Write.start(
                run.held().startedAt(clock.instant()),
                lastToLeave || withOthers,
                now.assignment().version());
    }

    /**
     * Waits on the item's own thread, which runs the item next, for the answer to the run's start. Not started when the
     * claim was taken over ({@code LOST}), or the write could not be made ({@code UNKNOWN}: this session's audit then
     * finds the claim as its own and decides again), or the run was abandoned before the answer came
     * ({@code ABANDONED}): a run starts only once its start is confirmed, and one abandoned before never enters the
     * job's code, where it would find its thread interrupted and end released, as a run that was cut.
     */
    Began began(ItemRun run, CompletableFuture<Optional<Claim>> answer) {
        Began began = answer.handle(RunStarts::answered).join();
        if (began != Began.STARTED) {
            return began;
        }
        run.started(answer.join().orElseThrow());
        return run.isAbandoned() ? Began.ABANDONED : Began.STARTED;
    }

    /** What the answer to a start write says: written, taken over, refused under a newer assignment, or unknown. */
    private static Began answered(Optional<Claim> stored, @Nullable Throwable failure) {
        if (failure != null) {
            return Answers.cause(failure) instanceof AssignmentGuard.Moved ? Began.MOVED : Began.UNKNOWN;
        }
        return stored.isPresent() ? Began.STARTED : Began.LOST;
    }

    /**
     * Asks, for a run whose start was written ahead, for the starts of the runs behind it once fewer than half of those
     * leaving within the bound are written: they are answered while this one runs.
     */
    void refill(FireStarts starts, JobSnapshot now) {
        int untaken = starts.untaken();
        int written = starts.writtenAhead();
        long bound = StartBatch.AHEAD.toNanos();
        if (StartBatch.writesAhead(now.configuration().failover())
                && StartBatch.refill(untaken, written, pace.running(), pace.itemNanos(), bound)) {
            int count = StartBatch.size(untaken, written, pace.running(), pace.itemNanos(), bound);
            if (count > 0 && writeAhead(starts, count, now) > 0) {
                groupCommit.flush();
            }
        }
    }

    /**
     * Queues the starts of the next {@code count} runs of the fire that the rule lets start now, decided as each would
     * be as it leaves; the others decide when they leave. Returns how many were queued: the caller's start (then
     * sent at once) or its flush sends them.
     */
    private int writeAhead(FireStarts starts, int count, JobSnapshot now) {
        Map<Claim, CompletableFuture<FireStarts.Ahead>> next = starts.takeAhead(count);
        RunStart.Here here;
        try {
            here = here(now, next.keySet().stream().map(Claim::item).toList(), starts.origin());
        } catch (RuntimeException unknown) {
            // No run waits for a start that is not on its way: each decides as it leaves.
            next.values().forEach(answer -> answer.complete(new FireStarts.Ahead(Began.NOT_ASKED, null)));
            return 0;
        }
        int queued = 0;
        Instant startedAt = clock.instant();
        for (Map.Entry<Claim, CompletableFuture<FireStarts.Ahead>> entry : next.entrySet()) {
            Claim claim = entry.getKey();
            CompletableFuture<FireStarts.Ahead> answer = entry.getValue();
            Reservation reservation = starts.reservation(claim.item());
            boolean abandoned = reservation == null || reservation.isAbandoned();
            if (RunStart.decide(claim, abandoned, here) != RunStart.Verdict.START) {
                answer.complete(new FireStarts.Ahead(Began.NOT_ASKED, null));
                continue;
            }
            groupCommit
                    .queue(GroupCommit.Write.start(
                            claim.startedAheadAt(startedAt),
                            false,
                            now.assignment().version()))
                    .whenComplete((stored, failure) -> answer.complete(new FireStarts.Ahead(
                            answered(stored, failure), failure != null ? null : stored.orElse(null))));
            queued++;
        }
        return queued;
    }

    /**
     * The pace of one job's runs on this instance, which sizes how many starts are written ahead ({@link StartBatch}): how
     * many runs hold an item thread now, and how long a run recently held it (from leaving the queue to handing its end to
     * the group commit). The time follows a slower run at once and a faster one gradually, so that items that grow longer
     * soon stop having starts written far ahead of them.
     */
    static final class ItemPace {

        private final AtomicInteger running = new AtomicInteger();
        private final AtomicLong itemNanos = new AtomicLong(StartBatch.UNKNOWN);

        /** A run took an item thread; returns when, for {@link #ended}. */
        long left() {
            running.incrementAndGet();
            return System.nanoTime();
        }

        /** The run that took its thread at {@code leftNanos} gives it back. */
        void ended(long leftNanos) {
            running.decrementAndGet();
            long sample = Math.max(1, System.nanoTime() - leftNanos);
            itemNanos.accumulateAndGet(
                    sample,
                    (recent, now) ->
                            recent < 0 ? now : now > recent ? (recent + now) / 2 : recent - (recent - now) / 8);
        }

        int running() {
            return running.get();
        }

        long itemNanos() {
            return itemNanos.get();
        }
    }
}
