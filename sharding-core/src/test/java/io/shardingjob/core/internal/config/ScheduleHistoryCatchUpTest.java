package io.shardingjob.core.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.config.ScheduleHistory.Entry;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which entry a history lacks, and from when, when a schedule was changed without one. */
class ScheduleHistoryCatchUpTest {

    private static final Instant LONG_AGO = Instant.EPOCH;

    private static final Instant RECORDED = Instant.parse("2026-01-01T00:00:00Z");

    private static final Instant CHANGED_BY_HAND = RECORDED.plusSeconds(60);

    private static final Instant NOW = CHANGED_BY_HAND.plusSeconds(5);

    private final JobConfiguration everyFiveSeconds = JobConfiguration.builder("report")
            .cron("*/5 * * * * *")
            .timeZone(ZoneOffset.UTC)
            .shardingTotalCount(4)
            .build();

    private final ScheduleHistory recorded =
            new ScheduleHistory(List.of(Entry.of(RECORDED, false, everyFiveSeconds, Set.of())));

    @Test
    void aHistoryThatSaysWhatIsStoredLacksNothing() {
        assertThat(ScheduleHistoryCatchUp.caughtUp(seen(everyFiveSeconds, recorded, Set.of()), NOW, LONG_AGO))
                .isNull();
    }

    @Test
    void aCronWrittenByHandCountsFromTheWriteOfTheConfigurationNotFromWhenAnInstanceSawIt() {
        JobConfiguration everySecond =
                everyFiveSeconds.toBuilder().cron("* * * * * *").build();

        ScheduleHistory caughtUp =
                ScheduleHistoryCatchUp.caughtUp(seen(everySecond, recorded, Set.of()), NOW, LONG_AGO);

        assertThat(caughtUp).isNotNull();
        assertThat(caughtUp.entries()).hasSize(2);
        assertThat(caughtUp.latest().from()).isEqualTo(CHANGED_BY_HAND);
        assertThat(caughtUp.latest().cron()).isEqualTo("* * * * * *");
        assertThat(caughtUp.latest().defined()).isFalse();
    }

    @Test
    void aJobDisabledByHandCountsFromTheWriteOfTheConfiguration() {
        ScheduleHistory caughtUp = ScheduleHistoryCatchUp.caughtUp(
                seen(everyFiveSeconds.toBuilder().disabled(true).build(), recorded, Set.of()), NOW, LONG_AGO);

        assertThat(caughtUp.latest().enabled()).isFalse();
        assertThat(caughtUp.latest().from()).isEqualTo(CHANGED_BY_HAND);
    }

    @Test
    void anItemDisabledByHandCountsFromWhenTheWriterSawIt() {
        ScheduleHistory caughtUp =
                ScheduleHistoryCatchUp.caughtUp(seen(everyFiveSeconds, recorded, Set.of(2)), NOW, LONG_AGO);

        assertThat(caughtUp.latest().disabledItems()).containsExactly(2);
        assertThat(caughtUp.latest().from()).isEqualTo(NOW);
    }

    @Test
    void aChangeByHandOlderThanTheLatestEntryStillComesAfterIt() {
        // The latest entry was written with a clock ahead of the ensemble's.
        ScheduleHistory ahead = new ScheduleHistory(List.of(Entry.of(NOW, false, everyFiveSeconds, Set.of())));

        ScheduleHistory caughtUp = ScheduleHistoryCatchUp.caughtUp(
                seen(everyFiveSeconds.toBuilder().shardingTotalCount(2).build(), ahead, Set.of()), NOW, LONG_AGO);

        assertThat(caughtUp.latest().from()).isEqualTo(NOW.plusMillis(1));
        assertThat(caughtUp.latest().count()).isEqualTo(2);
    }

    @Test
    void aJobWithoutAHistoryGetsOneInWhichWhatHoldsNowHeldAllAlong() {
        ScheduleHistory caughtUp = ScheduleHistoryCatchUp.caughtUp(
                seen(everyFiveSeconds, ScheduleHistory.EMPTY, Set.of(1)), NOW, LONG_AGO);

        assertThat(caughtUp.entries())
                .containsExactly(new Entry(
                        Instant.EPOCH,
                        false,
                        true,
                        "*/5 * * * * *",
                        ZoneOffset.UTC,
                        4,
                        new java.util.TreeSet<>(Set.of(1))));
    }

    private static ScheduleHistoryCatchUp.Seen seen(
            JobConfiguration stored, ScheduleHistory history, Set<Integer> disabledItems) {
        return new ScheduleHistoryCatchUp.Seen(
                stored, 3, CHANGED_BY_HAND, new ScheduleHistoryWrites.Read(history, 7), disabledItems);
    }
}
