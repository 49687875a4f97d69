package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.springframework.scheduling.support.CronExpression;

/**
 * Around every daylight-saving change of every zone the JDK knows (2024 to 2031), the fires {@link ZonedCron} gives are
 * exactly the cron's wall-clock times that exist, each once, at its first occurrence, in strictly increasing instants:
 * no fire identity twice, and no time in a gap.
 */
class DaylightSavingFiresProperties {

    /** Far enough from the change that the walk starts and ends on wall-clock times that are not ambiguous. */
    private static final Duration AROUND = Duration.ofHours(27);

    private static final List<String> CRONS = List.of(
            "0 30 2 * * *",
            "0 */15 * * * *",
            "0 0 * * * *",
            "0 30 * * * *",
            "0 45 1 * * *",
            "0 */5 * * * *",
            "0 0 0 * * *",
            "0 20,50 0-4 * * *",
            "0 0 3 * * SUN");

    record Change(ZoneId zone, ZoneOffsetTransition transition) {
        @Override
        public String toString() {
            return zone + " " + transition;
        }
    }

    @Property(tries = 400)
    void eachWallClockTimeThatExistsFiresOnceAtItsFirstOccurrence(
            @ForAll("changes") Change change, @ForAll("crons") String cron) {
        ZonedCron zoned = ZonedCron.parse(cron, change.zone());
        Instant start = change.transition().getInstant().minus(AROUND);
        Instant end = change.transition().getInstant().plus(AROUND);

        List<Instant> fires = new ArrayList<>();
        for (Instant next = zoned.nextAfter(start); !next.isAfter(end); next = zoned.nextAfter(next)) {
            if (!fires.isEmpty()) {
                assertThat(next).isAfter(fires.get(fires.size() - 1));
            }
            fires.add(next);
        }

        assertThat(fires).containsExactlyElementsOf(wallClockTimesThatExist(cron, change.zone(), start, end));
    }

    /** Minute by minute through the wall-clock times between the two instants: those of the cron that exist. */
    private static List<Instant> wallClockTimesThatExist(String cron, ZoneId zone, Instant start, Instant end) {
        CronExpression expression = CronExpression.parse(cron);
        List<Instant> expected = new ArrayList<>();
        LocalDateTime last = LocalDateTime.ofInstant(end, zone);
        for (LocalDateTime time = LocalDateTime.ofInstant(start, zone)
                        .withSecond(0)
                        .withNano(0)
                        .plusMinutes(1);
                !time.isAfter(last);
                time = time.plusMinutes(1)) {
            boolean matches = time.equals(expression.next(time.minusSeconds(1)));
            var offsets = zone.getRules().getValidOffsets(time);
            if (matches && !offsets.isEmpty()) {
                expected.add(time.toInstant(offsets.get(0)));
            }
        }
        return expected;
    }

    @Provide
    Arbitrary<Change> changes() {
        Instant from = Instant.parse("2024-01-01T00:00:00Z");
        Instant to = Instant.parse("2032-01-01T00:00:00Z");
        List<Change> changes = new ArrayList<>();
        ZoneId.getAvailableZoneIds().stream().sorted().map(ZoneId::of).forEach(zone -> {
            for (ZoneOffsetTransition transition = zone.getRules().nextTransition(from);
                    transition != null && transition.getInstant().isBefore(to);
                    transition = zone.getRules().nextTransition(transition.getInstant())) {
                changes.add(new Change(zone, transition));
            }
        });
        return Arbitraries.of(changes);
    }

    @Provide
    Arbitrary<String> crons() {
        return Arbitraries.of(CRONS);
    }
}
