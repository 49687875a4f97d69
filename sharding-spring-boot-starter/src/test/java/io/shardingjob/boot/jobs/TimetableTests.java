package io.shardingjob.boot.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The instance's schedule of next fire times, without a clock or a thread. */
class TimetableTests {

    private static final Instant T = Instant.parse("2026-11-26T11:00:00Z");

    private final Timetable<String> timetable = new Timetable<>();

    @Test
    void takesTheJobsDueAtTheSameInstantTogetherInTheOrderTheyWerePut() {
        timetable.put("b", T);
        timetable.put("a", T);
        timetable.put("later", T.plusSeconds(1));

        assertThat(timetable.takeDue(T)).containsExactly(new Timetable.Due<>("b", T), new Timetable.Due<>("a", T));
        assertThat(timetable.earliest()).isEqualTo(T.plusSeconds(1));
    }

    @Test
    void takesNothingBeforeItsTimeAndEverythingOverdueEarliestFirst() {
        timetable.put("second", T.plusSeconds(2));
        timetable.put("first", T.plusSeconds(1));

        assertThat(timetable.takeDue(T)).isEmpty();
        assertThat(timetable.takeDue(T.plusSeconds(5)))
                .extracting(Timetable.Due::entry)
                .containsExactly("first", "second");
        assertThat(timetable.earliest()).isNull();
        assertThat(timetable.size()).isZero();
    }

    @Test
    void puttingAJobAgainMovesItAsACronChangeDoes() {
        timetable.put("settlement", T.plusSeconds(60));

        timetable.put("settlement", T.plusSeconds(10));

        assertThat(timetable.size()).isOne();
        assertThat(timetable.timeOf("settlement")).isEqualTo(T.plusSeconds(10));
        assertThat(timetable.takeDue(T.plusSeconds(10)))
                .extracting(Timetable.Due::entry)
                .containsExactly("settlement");
        assertThat(timetable.takeDue(T.plusSeconds(60))).isEmpty();
    }

    @Test
    void aRemovedJobIsNeverTakenAndItsInstantGoesWithItsLastJob() {
        timetable.put("removed", T);
        timetable.put("kept", T.plusSeconds(1));

        assertThat(timetable.remove("removed")).isTrue();
        assertThat(timetable.remove("removed")).isFalse();

        assertThat(timetable.earliest()).isEqualTo(T.plusSeconds(1));
        assertThat(timetable.takeDue(T.plusSeconds(1)))
                .extracting(Timetable.Due::entry)
                .containsExactly("kept");
    }

    /** Any sequence of puts, removals and takes agrees with a plain map of job to time. */
    @Property
    void agreesWithAMapOfJobToTime(@ForAll @Size(max = 60) List<@IntRange(max = 299) Integer> operations) {
        Timetable<Integer> table = new Timetable<>();
        Map<Integer, Instant> model = new HashMap<>();
        int now = 0;
        for (int operation : operations) {
            int job = operation % 5;
            int kind = operation / 100;
            Instant time = T.plusSeconds(now + operation % 7);
            switch (kind) {
                case 0 -> {
                    table.put(job, time);
                    model.put(job, time);
                }
                case 1 -> assertThat(table.remove(job)).isEqualTo(model.remove(job) != null);
                default -> {
                    now += operation % 4;
                    Instant at = T.plusSeconds(now);
                    List<Map.Entry<Integer, Instant>> due = new ArrayList<>();
                    model.entrySet().stream()
                            .filter(entry -> !entry.getValue().isAfter(at))
                            .forEach(due::add);
                    List<Timetable.Due<Integer>> taken = table.takeDue(at);
                    assertThat(taken)
                            .extracting(Timetable.Due::entry)
                            .containsExactlyInAnyOrderElementsOf(
                                    due.stream().map(Map.Entry::getKey).toList());
                    assertThat(taken).isSortedAccordingTo(Comparator.comparing(Timetable.Due::time));
                    taken.forEach(each -> assertThat(each.time()).isEqualTo(model.remove(each.entry())));
                }
            }
            assertThat(table.size()).isEqualTo(model.size());
            assertThat(table.earliest())
                    .isEqualTo(model.values().stream()
                            .min(Comparator.naturalOrder())
                            .orElse(null));
        }
    }
}
