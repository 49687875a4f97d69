package io.shardingjob.boot.jobs;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The jobs' crons as Spring reads them, each cron and zone read once, for the triggers that fire the jobs and for the
 * ledger's schedule of which fires came due alike: both place the fires on the time line with {@link ZonedCron}, whose
 * rule for daylight-saving changes is thereby theirs. A cron Spring cannot read (one stored in ZooKeeper by hand, or by
 * another version) gets one answer from both: the job keeps the last cron its trigger could read.
 */
public final class JobCrons {

    /** Crons kept read: more than the jobs of a large service, each with a change or two. */
    private static final int KEPT = 4_096;

    private record Key(String cron, ZoneId zone) {}

    /** A cron Spring could read, or why it could not. */
    private record Read(
            @Nullable ZonedCron trigger, @Nullable String problem) {}

    /** The cron in force, as read: its trigger, and why the cron asked for was not read when it was not. */
    record InForce(ZonedCron trigger, @Nullable String problem) {}

    private final Map<Key, Read> read = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Read> eldest) {
            return size() > KEPT;
        }
    });

    /** By job, the last cron its trigger could read. */
    private final Map<String, ZonedCron> lastReadable = new ConcurrentHashMap<>();

    /**
     * The cron a job's trigger fires by now: {@code cron}, or the last one the job's trigger could read when Spring
     * cannot read it.
     *
     * @throws IllegalArgumentException when Spring cannot read {@code cron} and the job never had one it could
     */
    InForce inForce(String job, String cron, ZoneId zone) {
        Read reading = read(cron, zone);
        if (reading.trigger() != null) {
            lastReadable.put(job, reading.trigger());
            return new InForce(reading.trigger(), null);
        }
        ZonedCron kept = lastReadable.get(job);
        if (kept == null) {
            throw new IllegalArgumentException(reading.problem());
        }
        return new InForce(kept, reading.problem());
    }

    /**
     * The first fire strictly after {@code after} of {@code cron} in {@code zone}, as the job's trigger computes it; by
     * the job's last readable cron when Spring cannot read this one, and none when it never could.
     */
    @Nullable
    Instant nextAfter(String job, String cron, ZoneId zone, Instant after) {
        ZonedCron trigger = read(cron, zone).trigger();
        if (trigger == null) {
            trigger = lastReadable.get(job);
        }
        return trigger == null ? null : trigger.nextAfter(after);
    }

    /**
     * Spring's reading of the cron.
     *
     * @throws IllegalArgumentException saying why Spring cannot read it
     */
    ZonedCron parse(String cron, ZoneId zone) {
        Read reading = read(cron, zone);
        if (reading.trigger() == null) {
            throw new IllegalArgumentException(reading.problem());
        }
        return reading.trigger();
    }

    private Read read(String cron, ZoneId zone) {
        return read.computeIfAbsent(new Key(cron, zone), key -> {
            try {
                return new Read(ZonedCron.parse(key.cron(), key.zone()), null);
            } catch (IllegalArgumentException unreadable) {
                return new Read(null, String.valueOf(unreadable.getMessage()));
            }
        });
    }
}
