package io.shardingjob.core.internal.ledger;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.internal.config.ScheduleHistory;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Which fires were due, from the job's {@link ScheduleHistory}: a pure function of what held when.
 *
 * <ul>
 *   <li>A fire time is <em>scheduled</em> when the cron in force at that time fires then, the job was enabled then, and
 *       it comes at or after the job's (re)definition. Only scheduled fires are recorded as missed when nobody claimed
 *       them; a fire of a cron before a change is not due after it, nor a fire of the new cron before it. While the
 *       job was on demand ({@link Entry#onDemand()}) no fire was scheduled: its cron is not asked.
 *   <li>An item of a fire in the ledger is <em>due</em> when the job was enabled at the fire, the item was not disabled
 *       then, the item is below every count in force from the fire on (lowering the count settles the fires before it,
 *       as the items beyond the new count have no owner left to run them), and the fire is one of the schedule in force
 *       then, unless it was told of (an operator's fire, a caller's, one its upstream jobs recorded): a trigger that had
 *       not seen a change of cron yet fires on the old one, and what it recorded then is neither run nor made up.
 * </ul>
 *
 * <p>A time before the oldest entry is decided by that entry (what held then is not known, what held after is the best
 * guess), unless that entry is the job's definition: nothing before it was due.
 *
 * <p>"Not due" is final only when the history records the job's state as the instance that asks sees it ({@link
 * #judge}). A change written without its entry (by hand in ZooKeeper) reaches an instance's cache before the entry its
 * catch-up writes, and a history without it would call the new cron's fires not due: until the history records what
 * the instance sees, such an item-fire is not known yet, and is decided again later.
 */
public final class DueRule {

    /** The schedule of one entry: its cron's first fire time strictly after a time. */
    @FunctionalInterface
    public interface Cron {

        /** The first fire of the entry's cron strictly after {@code after}, or null for none (or no schedule known). */
        @Nullable
        Instant nextFireAfter(Entry entry, Instant after);
    }

    /** Whether an item of a fire was due, as far as the history an instance reads tells: see {@link #judge}. */
    public enum Due {
        YES,
        /** Not due, for good: the history records the job's state as the instance sees it. */
        NO,
        /**
         * Not due by a history that does not record the job's state as the instance sees it yet (a change whose entry
         * was not written or has not reached it): the run is left to be decided again once it does.
         */
        NOT_KNOWN_YET
    }

    private final List<Entry> entries;

    /** Whether the history's latest entry says what the instance sees: its "not due" is final. */
    private final boolean recordsWhatIsSeen;

    /** Null when no schedule is known ({@code FireSchedule.NONE}): no fire is scheduled, and none is judged by cron. */
    private final @Nullable Cron cron;

    /**
     * @param history not empty: a job without a history gets one from its state now (see {@link DueFires})
     * @param cron the crons' fire times, or null when the core is told no schedule: only the fires it is told of are
     *     known, and an item of any of them is due whatever its time
     */
    public DueRule(ScheduleHistory history, @Nullable Cron cron) {
        this(history, cron, true);
    }

    /**
     * @param seen the job's state as the instance that asks sees it (its configuration and disabled items; the entry's
     *     time is not asked): a "not due" is final only when the history's latest entry says the same
     */
    public DueRule(ScheduleHistory history, @Nullable Cron cron, Entry seen) {
        this(history, cron, history.records(seen));
    }

    private DueRule(ScheduleHistory history, @Nullable Cron cron, boolean recordsWhatIsSeen) {
        if (history.isEmpty()) {
            throw new IllegalArgumentException("a due rule needs a history");
        }
        this.entries = history.entries();
        this.cron = cron;
        this.recordsWhatIsSeen = recordsWhatIsSeen;
    }

    /** The time before which nothing was due: the job's (re)definition, or the beginning of time. */
    public Instant start() {
        Entry first = entries.get(0);
        return first.defined() ? first.from() : Instant.EPOCH;
    }

    /** The entry in force at a time, or null before the job's definition. */
    public @Nullable Entry inForceAt(Instant time) {
        int index = indexAt(time);
        return index < 0 ? null : entries.get(index);
    }

    private int indexAt(Instant time) {
        for (int index = entries.size() - 1; index >= 0; index--) {
            if (!entries.get(index).from().isAfter(time)) {
                return index;
            }
        }
        return entries.get(0).defined() ? -1 : 0;
    }

    /** Whether the job was defined and enabled at a time: any of its fires then may be due. */
    public boolean enabledAt(Instant time) {
        Entry entry = inForceAt(time);
        return entry != null && entry.enabled();
    }

    /**
     * The items a fire at this time may have: the least count in force from then on ({@link Entry#UNBOUNDED} under
     * dynamic sharding), 0 before the job's definition.
     */
    public int dueCount(Instant fireTime) {
        int index = indexAt(fireTime);
        if (index < 0) {
            return 0;
        }
        return entries.subList(index, entries.size()).stream()
                .mapToInt(Entry::count)
                .min()
                .orElse(Entry.UNBOUNDED);
    }

    /**
     * Whether one item of a fire held in the ledger was due: see the class comment.
     *
     * @param origin how the fire was asked for, as its node records it: one of the schedule is due only on its cron
     */
    public boolean isDue(Instant fireTime, int item, FireOrigin origin) {
        Entry entry = inForceAt(fireTime);
        return entry != null
                && entry.enabled()
                && !entry.disabledItems().contains(item)
                && item >= 0
                && item < dueCount(fireTime)
                && (origin.manual() || origin.followsUpstream() || cron == null || fires(entry, fireTime));
    }

    /**
     * What a run of an item-fire is to make of {@link #isDue(Instant, int, FireOrigin)}: due, not due for good, or not
     * known yet when the history does not record the job's state as the asking instance sees it (see the class
     * comment). Every decision that records an item-fire as not run because it was not due asks this.
     */
    public Due judge(Instant fireTime, int item, FireOrigin origin) {
        if (isDue(fireTime, item, origin)) {
            return Due.YES;
        }
        return recordsWhatIsSeen ? Due.NO : Due.NOT_KNOWN_YET;
    }

    public Due judge(LedgerRules.Slot slot, FireOrigin origin) {
        return judge(slot.fireTime(), slot.item(), origin);
    }

    /** Whether the schedule in force at this time fires then, while the job was enabled: see the class comment. */
    public boolean isScheduled(Instant fireTime) {
        Entry entry = inForceAt(fireTime);
        return entry != null && entry.enabled() && fires(entry, fireTime);
    }

    /** Whether the entry's cron fires at the time: never while the job was on demand (its cron is not asked). */
    private boolean fires(Entry entry, Instant fireTime) {
        if (entry.onDemand() || cron == null) {
            return false;
        }
        Instant next = cron.nextFireAfter(entry, fireTime.minusMillis(1));
        return next != null && FireSchedule.fireTimeOf(next).equals(FireSchedule.fireTimeOf(fireTime));
    }

    /**
     * The scheduled fire times strictly after {@code after} and before {@code before}, oldest first, at most {@code
     * limit}: each entry's cron within the time it was in force, while it was enabled.
     */
    public List<Instant> scheduled(Instant after, Instant before, int limit) {
        List<Instant> times = new ArrayList<>();
        if (cron == null) {
            return times;
        }
        for (int index = 0; index < entries.size() && times.size() < limit; index++) {
            Entry entry = entries.get(index);
            Instant from = index == 0 && !entry.defined() ? Instant.EPOCH : entry.from();
            Instant until = index + 1 < entries.size() ? entries.get(index + 1).from() : Instant.MAX;
            if (!entry.enabled() || entry.onDemand() || !until.isAfter(after) || !from.isBefore(before)) {
                continue;
            }
            Instant cursor = from.minusMillis(1).isAfter(after) ? from.minusMillis(1) : after;
            while (times.size() < limit) {
                Instant next = cron.nextFireAfter(entry, cursor);
                if (next == null) {
                    break;
                }
                next = FireSchedule.fireTimeOf(next);
                if (!next.isBefore(before) || !next.isBefore(until)) {
                    break;
                }
                if (next.isAfter(after)) {
                    times.add(next);
                }
                cursor = next.isAfter(cursor) ? next : cursor.plusMillis(1);
            }
        }
        return times;
    }
}
