package io.shardingjob.boot.jobs;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * A cron read in a time zone, and the one place that decides what a daylight-saving change does to its fires: both the
 * job's trigger and the ledger's schedule ask {@link #nextAfter(Instant)}, so they can never disagree.
 *
 * <p>The rule: each wall-clock time of the cron that exists fires once.
 *
 * <ul>
 *   <li>A time skipped by a gap (02:30 on the night 02:00 becomes 03:00) does not fire, as with Spring's
 *       {@code @Scheduled}. Moving it to the end of the gap would put every skipped time of a frequent cron, and the
 *       cron's own first time after the gap, on one instant: one fire identity for several fires.
 *   <li>A time repeated by an overlap (02:30 on the night 03:00 becomes 02:00) fires once, at its first occurrence
 *       (the earlier offset), as cron(8) does. Spring's {@code CronExpression} fires it twice where the clocks go back a
 *       whole hour, once where they go back 30 minutes (Lord Howe), and there even answers a time before the one it was
 *       given ({@code 0 0 * * * *} from 01:20 +11:00 gives 01:00 +11:00), which would fire a job again and again.
 * </ul>
 *
 * <p>So the cron is matched against wall-clock times ({@link LocalDateTime}, where Spring's cron has no zone to get
 * wrong), and each match is placed on the time line here.
 */
record ZonedCron(String expression, CronExpression cron, ZoneId zone) {

    /**
     * Spring's reading of the cron in this zone.
     *
     * @throws IllegalArgumentException saying why Spring cannot read it
     */
    static ZonedCron parse(String expression, ZoneId zone) {
        return new ZonedCron(expression, CronExpression.parse(expression), zone);
    }

    /** The first fire strictly after {@code after}, or null when the cron never fires again. */
    @Nullable
    Instant nextAfter(Instant after) {
        ZoneRules rules = zone.getRules();
        LocalDateTime wallTime = wallTimeDoneBy(after, rules);
        while (true) {
            LocalDateTime match = cron.next(wallTime);
            if (match == null) {
                return null;
            }
            List<ZoneOffset> offsets = rules.getValidOffsets(match);
            // No offset: the time lies in a gap and does not exist. Two: the earlier offset is its first occurrence.
            if (!offsets.isEmpty()) {
                Instant fire = match.toInstant(offsets.get(0));
                if (fire.isAfter(after)) {
                    return fire;
                }
            }
            wallTime = match;
        }
    }

    /**
     * The wall-clock time up to which every time of the cron has had its fire by {@code after}. In the second pass of an
     * overlap that is the end of the repeated span, not the clock's reading: the first pass fired those times.
     */
    private static LocalDateTime wallTimeDoneBy(Instant after, ZoneRules rules) {
        LocalDateTime wallTime = LocalDateTime.ofInstant(after, rules.getOffset(after));
        ZoneOffsetTransition transition = rules.getTransition(wallTime);
        if (transition != null
                && transition.isOverlap()
                && rules.getOffset(after).equals(transition.getOffsetAfter())) {
            return transition.getDateTimeBefore().minusNanos(1);
        }
        return wallTime;
    }
}
