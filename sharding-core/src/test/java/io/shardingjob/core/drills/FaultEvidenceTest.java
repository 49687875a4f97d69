package io.shardingjob.core.drills;

import static io.shardingjob.core.drills.WorkerLines.at;
import static io.shardingjob.core.drills.WorkerLines.lines;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.drills.DrillRecords.NotDue;
import io.shardingjob.core.drills.DrillRecords.Process;
import io.shardingjob.core.drills.DrillRecords.Window;
import io.shardingjob.core.drills.FaultEvidence.Bite;
import io.shardingjob.core.drills.FaultEvidence.Hit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Whether a fault bit, on small hand-made records: two items, fires at 10 s to 13 s (in epoch ms), the victim {@code
 * a#0} hit at 11.1 s while it ran item 0 of the fire at 11 s.
 */
class FaultEvidenceTest {

    private static final Window WINDOW = new Window(at(10_000), at(14_000), Duration.ofSeconds(1), 2);

    private static final long ALIVE = Long.MAX_VALUE;

    private static final long HIT = 11_100;

    private static final List<String> RUNNING_AT_THE_HIT =
            List.of("start 0 11000 11010 NORMAL", "end 0 11000 11010 19000 NORMAL failed");

    /** A take-over keeps the source of the run it took over, a make-up's say. */
    private static final List<String> TAKEN_OVER =
            List.of("start 0 11000 16300 MISFIRE", "end 0 11000 16300 16600 MISFIRE ok");

    @Test
    void seesALostSessionInTheVictimsConnectionLostLineAndWithFailoverItsRunsTakenOver() {
        Process told =
                new Process("a#0", lines(RUNNING_AT_THE_HIT, List.of("connection LOST 18500")), ALIVE, List.of());
        Process untold = new Process("a#0", RUNNING_AT_THE_HIT, ALIVE, List.of());
        Process other = new Process("b#0", TAKEN_OVER, ALIVE, List.of());
        Process idle = new Process("b#0", List.of(), ALIVE, List.of());

        assertThat(missing(Bite.SESSION_LOST, true, told, other)).isEmpty();
        assertThat(missing(Bite.SESSION_LOST, true, untold, other))
                .hasValueSatisfying(why -> assertThat(why).contains("no 'connection LOST'"));
        assertThat(missing(Bite.SESSION_LOST, true, told, idle))
                .hasValueSatisfying(why -> assertThat(why).contains("not taken over"));
        assertThat(missing(Bite.SESSION_LOST, false, told, idle)).isEmpty();
    }

    @Test
    void seesALostSessionsRunsTakenOverByTheVictimItselfOnlyOnceItLearnedItsSessionWasLost() {
        List<String> againAfterItsLoss = List.of("start 0 11000 19500 MISFIRE", "end 0 11000 19500 19800 MISFIRE ok");
        List<String> againBeforeItsLoss = List.of("start 0 11000 19100 MISFIRE", "end 0 11000 19100 19400 MISFIRE ok");
        Process idle = new Process("b#0", List.of(), ALIVE, List.of());
        Process tookItsOwnOver = new Process(
                "a#0",
                lines(RUNNING_AT_THE_HIT, List.of("connection LOST 19200"), againAfterItsLoss),
                ALIVE,
                List.of());
        Process ranItAgainUnderTheLostSession = new Process(
                "a#0",
                lines(RUNNING_AT_THE_HIT, againBeforeItsLoss, List.of("connection LOST 19450")),
                ALIVE,
                List.of());

        assertThat(missing(Bite.SESSION_LOST, true, tookItsOwnOver, idle)).isEmpty();
        assertThat(missing(Bite.SESSION_LOST, true, ranItAgainUnderTheLostSession, idle))
                .hasValueSatisfying(why -> assertThat(why).contains("not taken over"));
    }

    @Test
    void seesAKillInARunItCutAndWithFailoverThatRunsItemFireRunAgain() {
        Process killed = new Process("a#0", List.of("start 0 11000 11010 NORMAL"), HIT, List.of());
        Process killedIdle = new Process("a#0", List.of(), HIT, List.of());
        Process other = new Process("b#0", TAKEN_OVER, ALIVE, List.of());
        Process idle = new Process("b#0", List.of(), ALIVE, List.of());

        assertThat(missing(Bite.KILLED_RUNNING, true, killed, other)).isEmpty();
        assertThat(missing(Bite.KILLED_RUNNING, true, killedIdle, other)).isPresent();
        assertThat(missing(Bite.KILLED_RUNNING, true, killed, idle)).isPresent();
        assertThat(missing(Bite.KILLED_RUNNING, false, killed, idle)).isEmpty();
    }

    @Test
    void seesARestartInTheInstancesNextProcessBeingReadyAfterTheHit() {
        Process killed = new Process("a#0", List.of("ready 9000"), HIT, List.of());
        Process again = new Process("a#1", List.of("ready 12000"), ALIVE, List.of());
        Process another = new Process("b#0", List.of("ready 12000"), ALIVE, List.of());

        assertThat(missing(Bite.RESTARTED, true, killed, again)).isEmpty();
        assertThat(missing(Bite.RESTARTED, true, killed, another)).isPresent();
    }

    @Test
    void seesAGracefulStopInTheVictimsClosedLine() {
        assertThat(missing(Bite.STOPPED, true, new Process("a#0", List.of("closed 11500"), 11_600, List.of())))
                .isEmpty();
        assertThat(missing(Bite.STOPPED, true, new Process("a#0", List.of(), 11_600, List.of())))
                .isPresent();
    }

    @Test
    void seesItemsMovedWhenEveryItemTheVictimRanBeforeTheHitRanElsewhereAfterIt() {
        Process killed = new Process("a#0", run(0, 10_000), HIT, List.of());
        Process took = new Process("b#0", run(0, 12_000), ALIVE, List.of());
        Process kept = new Process("b#0", run(1, 12_000), ALIVE, List.of());

        assertThat(missing(Bite.ITEMS_MOVED, true, killed, took)).isEmpty();
        assertThat(missing(Bite.ITEMS_MOVED, true, killed, kept))
                .hasValueSatisfying(why -> assertThat(why).endsWith("[0]"));
    }

    @Test
    void seesAFaultOfZooKeeperInTheConnectionLinesOfEveryWorkerRunningAtTheHit() {
        Process suspended = new Process("a#0", List.of("ready 9000", "connection SUSPENDED 11200"), ALIVE, List.of());
        Process lost = new Process("b#0", List.of("ready 9000", "connection LOST 16200"), ALIVE, List.of());
        Process untold = new Process("c#0", List.of("ready 9000", "connection SUSPENDED 10000"), ALIVE, List.of());
        // Started after the hit: it had no connection to break.
        Process later = new Process("d#0", List.of("ready 12000"), ALIVE, List.of());

        assertThat(missingOfEveryone(Bite.CONNECTIONS_BROKEN, suspended, lost, later))
                .isEmpty();
        assertThat(missingOfEveryone(Bite.CONNECTIONS_BROKEN, suspended, untold))
                .hasValueSatisfying(why -> assertThat(why).endsWith("[c#0]"));
        assertThat(missingOfEveryone(Bite.SESSIONS_LOST, suspended, lost))
                .hasValueSatisfying(why -> assertThat(why).endsWith("[a#0]"));
    }

    @Test
    void seesAnOperatorsChangeInItemFiresTakenOutOfTheScheduleThatRanNowhere() {
        // Item 1 disabled from 10.5 s to 13.5 s: its fire of 12 s is taken out (those of 11 s and 13 s are at the
        // edges).
        Window window = new Window(
                at(10_000),
                at(14_000),
                Duration.ofSeconds(1),
                2,
                List.of(),
                List.of(new NotDue(10_500, 13_500, Set.of(1), 0)));
        Process respected = new Process("a#0", lines(run(1, 10_000), run(1, 11_000), run(1, 13_000)), ALIVE, List.of());
        Process ignored = new Process("a#0", lines(run(1, 10_000), run(1, 12_000)), ALIVE, List.of());

        Hit hit = Hit.ofEveryone(Bite.TAKEN_OUT, HIT);
        assertThat(FaultEvidence.missing(hit, List.of(respected), window, true)).isEmpty();
        assertThat(FaultEvidence.missing(hit, List.of(ignored), window, true)).isPresent();
        assertThat(FaultEvidence.missing(hit, List.of(respected), WINDOW, true))
                .hasValueSatisfying(why -> assertThat(why).contains("no item-fire"));
    }

    @Test
    void seesAStandByInNoRunOfTheFiresDueASlackAfterItsLineUntilItsResumeAndRunsAfterIt() {
        List<String> before = run(0, 10_000);
        List<String> standing = List.of("standing-by 11150");
        List<String> resumed = List.of("resumed 15200");
        List<String> back = run(0, 16_000);
        // The fire of 12 s came within a reshard's slack of the line; that of 13 s did not.
        Process stoodBy = new Process("a#0", lines(before, standing, run(0, 12_000), resumed, back), ALIVE, List.of());
        Process ranOn = new Process("a#0", lines(before, standing, run(0, 13_000), resumed, back), ALIVE, List.of());
        Process neverBack = new Process("a#0", lines(before, standing, resumed), ALIVE, List.of());
        Process untold = new Process("a#0", lines(before, back), ALIVE, List.of());
        Process idle = new Process("a#0", lines(standing, resumed, back), ALIVE, List.of());

        assertThat(missing(Bite.STOOD_BY, true, stoodBy)).isEmpty();
        assertThat(missing(Bite.STOOD_BY, true, ranOn))
                .hasValueSatisfying(why -> assertThat(why).contains("while it stood by"));
        assertThat(missing(Bite.STOOD_BY, true, neverBack))
                .hasValueSatisfying(why -> assertThat(why).contains("did not come back"));
        assertThat(missing(Bite.STOOD_BY, true, untold))
                .hasValueSatisfying(why -> assertThat(why).contains("no 'standing-by'"));
        assertThat(missing(Bite.STOOD_BY, true, idle))
                .hasValueSatisfying(why -> assertThat(why).contains("had none to hand over"));
    }

    @Test
    void excusesAStandingByRunOnlyWithinASlackOfItsRegistrationUnderANewSession() {
        List<String> standing = List.of("standing-by 11150", "connection LOST 12500", "connection RECONNECTED 13400");
        List<String> resumed = List.of("resumed 15200");
        // The race window of LeavingMark: the fire of 14 s came within a slack of the new session, that of 15 s not.
        Process raced = new Process(
                "a#0", lines(run(0, 10_000), standing, run(0, 14_000), resumed, run(0, 16_000)), ALIVE, List.of());
        Process unmarked = new Process(
                "a#0", lines(run(0, 10_000), standing, run(0, 15_000), resumed, run(0, 16_000)), ALIVE, List.of());

        assertThat(missing(Bite.STOOD_BY, true, raced)).isEmpty();
        assertThat(missing(Bite.STOOD_BY, true, unmarked))
                .hasValueSatisfying(why -> assertThat(why).contains("while it stood by"));
    }

    @Test
    void findsTheOverrunsAStandingByWorkerReportedOfFiresDueWhileItStoodBy() {
        Process victim = new Process(
                "a#0",
                List.of(
                        "overran 10000 [0]",
                        "standing-by 11150",
                        "overran 12000 [0]",
                        "resumed 15200",
                        "overran 13000 [0]",
                        "overran 16000 [0]"),
                ALIVE,
                List.of());

        // Of 12 s: within the slack, its items may still have been its own; of 13 s: reported after the resume.
        assertThat(FaultEvidence.overranWhileStandingBy(victim, HIT)).containsExactly("overran 13000 [0]");
    }

    /** The hit of {@code a#0} at 11.1 s. */
    private static Optional<String> missing(Bite bite, boolean failover, Process... processes) {
        return FaultEvidence.missing(new Hit(bite, "a#0", HIT), List.of(processes), WINDOW, failover);
    }

    private static Optional<String> missingOfEveryone(Bite bite, Process... processes) {
        return FaultEvidence.missing(Hit.ofEveryone(bite, HIT), List.of(processes), WINDOW, true);
    }

    private static List<String> run(int item, long fire) {
        long start = fire + 10;
        return List.of(
                "start " + item + " " + fire + " " + start + " NORMAL",
                "end " + item + " " + fire + " " + start + " " + (start + 300) + " NORMAL ok");
    }
}
