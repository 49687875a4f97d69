package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.shardingjob.boot.console.TimelineLayout.Bar;
import io.shardingjob.boot.console.TimelineLayout.Fires;
import io.shardingjob.boot.console.TimelineLayout.Lane;
import io.shardingjob.boot.console.TimelineLayout.Outcome;
import io.shardingjob.boot.console.TimelineLayout.Picture;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where the timeline puts each item run: a lane per instance, time left to right over the runs' span. */
class TimelineLayoutTests {

    private static final Instant T = Instant.parse("2026-03-01T02:00:00Z");

    /** 100 ms to the pixel: 1,000 pixels of plot for the 100 s from T to T + 100 s. */
    private static final int WIDTH = TimelineLayout.LABEL_WIDTH + 1000;

    /** One run from T + start to T + end seconds, in a picture from T to T + 100 s: where its bar is and how long. */
    @ParameterizedTest(name = "{0}s to {1}s -> x {2}, width {3}")
    @CsvSource({
        "0,   10,  0,    100",
        "50,  60,  500,  100",
        "90,  100, 900,  100",
        "30,  30,  300,  2",
        "0,   100, 0,    1000",
    })
    void mapsTimeToXOverTheSpanOfTheRuns(int start, int end, double x, double width) {
        Picture picture = TimelineLayout.of(
                List.of(new Fires(
                        "settle",
                        List.of(
                                fire(T, claim(0, ClaimState.DONE, "app-1", true, T, T.plusSeconds(1))),
                                fire(
                                        T.plusSeconds(start),
                                        claim(
                                                1,
                                                ClaimState.DONE,
                                                "app-1",
                                                true,
                                                T.plusSeconds(start),
                                                T.plusSeconds(end))),
                                fire(
                                        T.plusSeconds(99),
                                        claim(
                                                2,
                                                ClaimState.DONE,
                                                "app-1",
                                                true,
                                                T.plusSeconds(99),
                                                T.plusSeconds(100)))))),
                T.plusSeconds(500),
                WIDTH);

        Bar bar = picture.bars().stream().filter(b -> b.item() == 1).findFirst().orElseThrow();
        assertThat(bar.x() - TimelineLayout.LABEL_WIDTH).isCloseTo(x, within(0.01));
        assertThat(bar.width()).isCloseTo(width, within(0.01));
        assertThat(picture.from()).isEqualTo(T);
        assertThat(picture.to()).isEqualTo(T.plusSeconds(100));
    }

    @Test
    void givesEachInstanceALaneByNameAndEachRunABarInItsInstancesLane() {
        Picture picture = TimelineLayout.of(
                List.of(new Fires(
                        "settle",
                        List.of(fire(
                                T,
                                claim(0, ClaimState.DONE, "app-2", true, T, T.plusSeconds(2)),
                                claim(1, ClaimState.FAILED, "app-1", true, T, T.plusSeconds(1)),
                                claim(2, ClaimState.DONE, "app-2", true, T.plusSeconds(2), T.plusSeconds(4)))))),
                T.plusSeconds(10),
                WIDTH);

        assertThat(picture.lanes()).extracting(Lane::instance).containsExactly("app-1", "app-2");
        assertThat(picture.lanes()).extracting(Lane::y).containsExactly(0, TimelineLayout.LANE_HEIGHT);
        assertThat(picture.bars())
                .extracting(bar -> bar.item() + "@" + bar.lane() + " " + bar.outcome())
                .containsExactly("0@1 SUCCEEDED", "1@0 FAILED", "2@1 SUCCEEDED");
        assertThat(picture.bars().get(1).duration()).isEqualTo(Duration.ofSeconds(1));
        assertThat(picture.height()).isEqualTo(2 * TimelineLayout.LANE_HEIGHT + TimelineLayout.AXIS_HEIGHT);
    }

    @Test
    void aRunningItemReachesNowAndItsEndIsThePicturesRightEdge() {
        Instant now = T.plusSeconds(8);
        Picture picture = TimelineLayout.of(
                List.of(new Fires(
                        "settle",
                        List.of(fire(
                                T,
                                claim(0, ClaimState.RUNNING, "app-1", true, T.plusSeconds(4), null),
                                claim(1, ClaimState.DONE, "app-1", true, T, T.plusSeconds(2)))))),
                now,
                WIDTH);

        Bar running = picture.bars().get(0);
        assertThat(running.outcome()).isEqualTo(Outcome.RUNNING);
        assertThat(running.duration()).isEqualTo(Duration.ofSeconds(4));
        assertThat(running.x() + running.width()).isCloseTo(WIDTH, within(0.01));
        assertThat(picture.to()).isEqualTo(now);
    }

    /** Which claims are runs: those that started, with the outcome their bar is coloured by. */
    @ParameterizedTest(name = "{0}, live {1} -> {2}")
    @CsvSource({
        "DONE,      true,  SUCCEEDED",
        "FAILED,    true,  FAILED",
        "RUNNING,   true,  RUNNING",
        "RUNNING,   false, UNFINISHED",
        "RELEASED,  true,  UNFINISHED",
        "RESERVED,  true,  ",
        "HANDED_ON, true,  ",
        "SKIPPED,   true,  ",
        "COALESCED, true,  ",
    })
    void drawsOnlyTheClaimsWhoseRunStarted(ClaimState state, boolean live, @Nullable Outcome outcome) {
        Instant ended = state.isOpen() ? null : T.plusSeconds(1);
        Picture picture = TimelineLayout.of(
                List.of(new Fires("settle", List.of(fire(T, claim(0, state, "app-1", live, T, ended))))),
                T.plusSeconds(5),
                WIDTH);

        if (outcome == null) {
            assertThat(picture.isEmpty()).isTrue();
            assertThat(picture.lanes()).isEmpty();
        } else {
            assertThat(picture.bars()).singleElement().extracting(Bar::outcome).isEqualTo(outcome);
        }
    }

    @Test
    void theTooltipNamesTheJobItemFireInstanceAndHowLongItRan() {
        Bar bar = new Bar("app-1", 0, 130, 4, 20, "settle", 1, T, Duration.ofSeconds(2), Outcome.FAILED);

        assertThat(TimelinePanel.tooltip(bar))
                .isEqualTo("settle item 1, fire 2026-03-01T02:00:00Z, on app-1: failed after 2 s");
    }

    private static LedgerFire fire(Instant time, LedgerFire.Item... items) {
        return new LedgerFire(time, false, List.of(items), List.of(), List.of(), null);
    }

    private static LedgerFire.Item claim(
            int item, ClaimState state, String instance, boolean live, Instant started, @Nullable Instant ended) {
        return new LedgerFire.Item(item, state, instance, live, ExecutionSource.NORMAL, 1, 0, 7, started, ended, null);
    }
}
