package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Which fires came due, as far as one instance knows: its schedule's fire times and the fires it was told of (a manual
 * fire, a fire of a caller without a schedule). A due fire that is late and has no node in the ledger was claimed by
 * nobody: it is recorded, empty, so that the watermark cannot pass it and the audits of its items' owners make it up
 * as the misfire policy says. The leader's keeper records them before it moves the watermark; audits record them too,
 * so that a missed fire is made up as soon as it is late rather than at the next upkeep.
 */
public final class DueFires {

    /** Fires recorded in one go at most: a long outage's backlog is worked off over several passes. */
    static final int MAX_PER_PASS = 256;

    private final ClaimWrites claims;
    private final FireSchedule schedule;
    private final Supplier<JobConfiguration> configuration;
    private final Supplier<? extends Collection<Instant>> seen;
    private final Supplier<ScheduleHistory> history;
    private final Supplier<? extends Collection<Integer>> disabledItems;

    /** The rule last built, with what it was built from. */
    private volatile @Nullable Memo memo;

    /**
     * @param history the job's schedule history, as cached: which fires were due
     * @param disabledItems the items disabled now: with the configuration, the state the history must record for a "not
     *     due" to be final; for a job whose history was never written (stored before there were histories), the state
     *     now is taken to have held all along
     */
    public DueFires(
            ClaimWrites claims,
            FireSchedule schedule,
            Supplier<JobConfiguration> configuration,
            Supplier<? extends Collection<Instant>> seen,
            Supplier<ScheduleHistory> history,
            Supplier<? extends Collection<Integer>> disabledItems) {
        this.claims = claims;
        this.schedule = schedule;
        this.configuration = configuration;
        this.seen = seen;
        this.history = history;
        this.disabledItems = disabledItems;
    }

    /**
     * Which fires and items were due, from the job's schedule history as it stands now, judged against the job's state
     * as this instance sees it: a "not due" is final only when the history records it ({@link DueRule#judge}). The
     * same rule while that state stands: every run's start asks it, and building it anew (each entry's schedule, each
     * cron's next fire) was a tenth of a run's CPU.
     */
    public DueRule rule() {
        Inputs now = new Inputs(configuration.get(), history.get(), List.copyOf(disabledItems.get()));
        Memo last = memo;
        if (last != null && last.inputs().equals(now)) {
            return last.rule();
        }
        DueRule rule = ruleOf(now);
        memo = new Memo(now, rule);
        return rule;
    }

    /** What a rule is made of: the job's state as this instance sees it, and its history. */
    private record Inputs(JobConfiguration job, ScheduleHistory history, List<Integer> disabledItems) {}

    private record Memo(Inputs inputs, DueRule rule) {}

    private DueRule ruleOf(Inputs inputs) {
        JobConfiguration job = inputs.job();
        Entry seen = Entry.of(Instant.EPOCH, false, job, inputs.disabledItems());
        ScheduleHistory held = inputs.history();
        if (held.isEmpty()) {
            held = new ScheduleHistory(List.of(seen));
        }
        if (schedule == FireSchedule.NONE) {
            // Told no schedule: the fires it is told of are all it knows, whatever their time.
            return new DueRule(held, null, seen);
        }
        Map<Entry, JobConfiguration> schedules = new ConcurrentHashMap<>();
        return new DueRule(
                held,
                (entry, after) ->
                        schedule.nextFireAfter(schedules.computeIfAbsent(entry, any -> scheduleOf(entry, job)), after),
                seen);
    }

    /** The job's configuration with the entry's cron, or as it is when that cron does not validate any more. */
    private static JobConfiguration scheduleOf(Entry entry, JobConfiguration job) {
        try {
            return entry.schedule(job);
        } catch (RuntimeException invalid) {
            return job;
        }
    }

    /**
     * Records the late due fires the ledger does not hold.
     *
     * @param isLate whether a fire this instance was told of is late: its claimers had their time
     * @param scheduledBefore the schedule's fires count only before this one: a fire after which another one settled is
     *     missed for sure, while a recent one may still wait in the queue of the instance that will run it
     * @param horizon fires before it are beyond catch-up and not recorded
     * @return the fires recorded now, oldest first, once they are; completes on ZooKeeper's event thread
     */
    public CompletableFuture<List<Instant>> recordLate(
            Instant watermark,
            List<Instant> recorded,
            Predicate<Instant> isLate,
            Instant scheduledBefore,
            Instant horizon) {
        DueRule rule = rule();
        // Only what the history says was due: a fire of the cron in force at its time, while the job was enabled,
        // after its definition. A disabled job's fires are not due: nothing is made up for them once it is enabled.
        List<Instant> missing = unrecorded(
                scheduled(rule, historyStart(watermark, recorded, rule.start()), scheduledBefore, horizon),
                seen.get().stream().filter(rule::enabledAt).toList(),
                recorded,
                watermark,
                isLate,
                horizon);
        return CompletableFuture.allOf(
                        missing.stream().map(claims::recordDueAsync).toArray(CompletableFuture[]::new))
                .thenApply(written -> missing);
    }

    /**
     * Whether a fire node created ahead, with no claim in it, stands for a fire that came due: the job was enabled then
     * and the schedule in force then fires then. After a change of schedule, or for a fire while the job was disabled,
     * it stands for nothing, and is passed over.
     */
    public boolean cameDue(Instant aheadFire) {
        return rule().isScheduled(aheadFire);
    }

    /** The schedule's fire times after the ledger's history starts and before {@code before}. */
    private static List<Instant> scheduled(
            DueRule rule, @Nullable Instant historyStart, Instant before, Instant horizon) {
        if (historyStart == null) {
            return List.of();
        }
        Instant after = historyStart.isBefore(horizon) ? horizon.minusMillis(1) : historyStart;
        return rule.scheduled(after, before, MAX_PER_PASS);
    }

    /**
     * Where the fires that can be missed begin: the watermark once it was ever moved; else the job's definition, when its
     * schedule history has one (a job defined at run time owes every fire from then on, its first ones too, which may
     * come due before any instance started it); else the ledger's first fire, and null for a job that never fired: a job
     * whose history does not say when it began owes nothing from before it first ran.
     *
     * @param defined the job's definition as its schedule history says it, {@link Instant#EPOCH} when it does not
     */
    static @Nullable Instant historyStart(Instant watermark, List<Instant> recorded, Instant defined) {
        if (watermark.isAfter(Instant.EPOCH)) {
            return watermark;
        }
        if (defined.isAfter(Instant.EPOCH)) {
            return defined;
        }
        return recorded.isEmpty() ? null : recorded.get(0);
    }

    /**
     * The pure rule: the scheduled and seen fires after the watermark, within the horizon and late, that the ledger
     * does not hold, oldest first and at most {@link #MAX_PER_PASS}.
     */
    static List<Instant> unrecorded(
            Collection<Instant> scheduled,
            Collection<Instant> seen,
            Collection<Instant> recorded,
            Instant watermark,
            Predicate<Instant> isLate,
            Instant horizon) {
        Set<Instant> held = new HashSet<>(recorded);
        TreeSet<Instant> due = new TreeSet<>(scheduled);
        due.addAll(seen);
        return due.stream()
                .filter(fireTime -> fireTime.isAfter(watermark) && !fireTime.isBefore(horizon))
                .filter(fireTime -> !held.contains(fireTime) && (scheduled.contains(fireTime) || isLate.test(fireTime)))
                .limit(MAX_PER_PASS)
                .toList();
    }
}
