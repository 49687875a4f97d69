package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.JobConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What held for a job since when: its schedule (cron and zone), whether it was enabled, its item count and its disabled
 * items, each entry from the time the change that made it was written until the next one. Stored in {@code
 * /{job}/history} and written by whatever makes the change, in the same multi-operation (see {@link
 * ScheduleHistoryWrites}); read by the ledger to tell which fires were due (the rule is {@code DueRule}).
 *
 * <p>Bounded: an entry superseded before the job's catch-up horizon is dropped (what it said no longer decides any
 * fire), by a writer that knows the horizon (an instance of the job: it is the coordinator's setting); and the oldest
 * entries beyond {@link #MAX_BYTES} encoded. A fire before the oldest entry kept is decided by that entry, unless it is
 * a {@linkplain Entry#defined() definition}: nothing before a job was (re)defined at run time was ever due.
 *
 * @param entries oldest first, each from a later time than the one before
 */
public record ScheduleHistory(List<Entry> entries) {

    /**
     * What the encoded history takes at most, whatever its entries' age: some 1,500 changes of cron without disabled
     * items, far more than a horizon of hours sees of an operator clicking through a console. Bounded in bytes, not
     * entries, as what it must fit in is an answer: a job's start and its cache read it with its configuration (at most
     * half a packet) and its assignment (122 kB for ten thousand items), and one answer must carry the three.
     */
    public static final int MAX_BYTES = 128 * 1024;

    /** No history (a job stored before histories were): the job's state now is all there is. */
    public static final ScheduleHistory EMPTY = new ScheduleHistory(List.of());

    public ScheduleHistory {
        entries = List.copyOf(entries);
    }

    /**
     * What held from {@code from} on.
     *
     * @param defined whether the job was (re)defined at {@code from}: nothing before it belongs to this job
     * @param count the item count, or {@link #UNBOUNDED} under dynamic sharding (the count follows the cluster)
     */
    public record Entry(
            Instant from,
            boolean defined,
            boolean enabled,
            String cron,
            ZoneId zone,
            int count,
            SortedSet<Integer> disabledItems) {

        /** The count of a job under dynamic sharding: any item the cluster has. */
        public static final int UNBOUNDED = Integer.MAX_VALUE;

        public Entry {
            disabledItems = new TreeSet<>(disabledItems);
        }

        /** What the configuration and the disabled items say, from {@code from} on. */
        public static Entry of(Instant from, boolean defined, JobConfiguration job, Collection<Integer> disabledItems) {
            return new Entry(
                    from,
                    defined,
                    !job.disabled(),
                    job.cron(),
                    job.timeZone(),
                    job.dynamicSharding() ? UNBOUNDED : job.shardingTotalCount(),
                    new TreeSet<>(disabledItems));
        }

        /** This entry from another time. */
        Entry at(Instant from, boolean defined) {
            return new Entry(from, defined, enabled, cron, zone, count, disabledItems);
        }

        /** Whether the two say the same about which fires are due, whenever they start. */
        boolean sameState(Entry other) {
            return enabled == other.enabled
                    && cron.equals(other.cron)
                    && zone.equals(other.zone)
                    && count == other.count
                    && disabledItems.equals(other.disabledItems);
        }

        /** Whether the job was on demand: it had no schedule, so none of its fires was scheduled. */
        public boolean onDemand() {
            return JobConfiguration.ON_DEMAND.equals(cron);
        }

        /** The job's configuration with this entry's schedule: what its cron was then. */
        public JobConfiguration schedule(JobConfiguration job) {
            return job.cron().equals(cron) && job.timeZone().equals(zone)
                    ? job
                    : job.toBuilder().cron(cron).timeZone(zone).build();
        }
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /**
     * Whether its latest entry says what {@code seen} says of which fires are due (its time and whether it defines the
     * job aside): the history records the job's state as seen, and lacks no entry.
     */
    public boolean records(Entry seen) {
        Entry latest = latest();
        return latest != null && latest.sameState(seen);
    }

    public @Nullable Entry latest() {
        return entries.isEmpty() ? null : entries.get(entries.size() - 1);
    }

    /**
     * This history with {@code next} appended, when it changes what held (or defines the job), and without the entries
     * superseded before {@code horizon}; this history when {@code next} says nothing new.
     */
    public ScheduleHistory with(Entry next, Instant horizon) {
        Entry latest = latest();
        if (latest != null && !next.defined() && latest.sameState(next)) {
            return this;
        }
        List<Entry> kept = new ArrayList<>();
        for (Entry entry : entries) {
            // A change written with a clock behind the last one's still comes after it.
            if (!entry.from().isBefore(next.from())) {
                next = next.at(entry.from().plusMillis(1), next.defined());
            }
            kept.add(entry);
        }
        kept.add(next);
        return new ScheduleHistory(pruned(kept, horizon));
    }

    /** Drops entries superseded before the horizon, and the oldest beyond {@link #MAX_BYTES}. */
    private static List<Entry> pruned(List<Entry> entries, Instant horizon) {
        int first = 0;
        while (first + 1 < entries.size() && !entries.get(first + 1).from().isAfter(horizon)) {
            first++;
        }
        long bytes = 0;
        for (int index = entries.size() - 1; index >= first; index--) {
            bytes += line(entries.get(index)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_BYTES) {
                // The latest entry stays, whatever its size: it says what holds now.
                first = Math.min(index + 1, entries.size() - 1);
                break;
            }
        }
        return entries.subList(first, entries.size());
    }

    /** One entry a line: {@code fromMillis, defined|changed, enabled|disabled, count, disabled items, zone, cron}. */
    public byte[] encode() {
        return entries.stream()
                .map(ScheduleHistory::line)
                .collect(Collectors.joining())
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String line(Entry entry) {
        String disabled = entry.disabledItems().isEmpty()
                ? "-"
                : entry.disabledItems().stream().map(String::valueOf).collect(Collectors.joining(","));
        return String.join(
                        "\t",
                        Long.toString(entry.from().toEpochMilli()),
                        entry.defined() ? "defined" : "changed",
                        entry.enabled() ? "enabled" : "disabled",
                        entry.count() == Entry.UNBOUNDED ? "dynamic" : Integer.toString(entry.count()),
                        disabled,
                        entry.zone().getId(),
                        entry.cron())
                + "\n";
    }

    /**
     * The history as stored; lines it cannot read are left out (a fire they would have decided is then decided by the
     * entry before, or not due).
     */
    public static ScheduleHistory decode(byte @Nullable [] data) {
        if (data == null || data.length == 0) {
            return EMPTY;
        }
        List<Entry> entries = new ArrayList<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            String[] fields = line.split("\t", 7);
            if (fields.length < 7) {
                continue;
            }
            try {
                Set<Integer> disabled = fields[4].equals("-")
                        ? Set.of()
                        : java.util.Arrays.stream(fields[4].split(","))
                                .map(Integer::valueOf)
                                .collect(Collectors.toSet());
                Entry entry = new Entry(
                        Instant.ofEpochMilli(Long.parseLong(fields[0])),
                        fields[1].equals("defined"),
                        fields[2].equals("enabled"),
                        fields[6],
                        ZoneId.of(fields[5]),
                        fields[3].equals("dynamic") ? Entry.UNBOUNDED : Integer.parseInt(fields[3]),
                        new TreeSet<>(disabled));
                if (entries.isEmpty()
                        || entry.from().isAfter(entries.get(entries.size() - 1).from())) {
                    entries.add(entry);
                }
            } catch (RuntimeException unreadable) {
                // Left out: see the Javadoc.
            }
        }
        return new ScheduleHistory(entries);
    }
}
