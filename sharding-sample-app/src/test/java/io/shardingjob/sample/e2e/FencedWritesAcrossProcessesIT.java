package io.shardingjob.sample.e2e;

import static io.shardingjob.sample.e2e.Drills.SETTLEMENT;
import static io.shardingjob.sample.e2e.Drills.assertCompleteAssignment;
import static io.shardingjob.sample.e2e.Drills.executions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import io.shardingjob.sample.e2e.SettlementRuns.Run;
import io.shardingjob.sample.e2e.ShardingJson.Execution;
import io.shardingjob.sample.e2e.ShardingJson.Item;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The promise of fenced writes with real processes (issue 42): a copy of the sample frozen with SIGSTOP in the middle
 * of its items, held until its ZooKeeper session expired and another copy settled those regions, then resumed with
 * SIGCONT, has every write of those runs refused, while its successor's rows stand. Two copies write one shared
 * database, an H2 server started here or the PostgreSQL of {@code SHARDING_TEST_POSTGRES_URL}, through the sample's
 * {@code SettlementStore} ({@code FencedJdbc}).
 *
 * <p>Who succeeds the frozen runs depends on {@code failover}. On, the other copy takes the runs over as soon as the
 * session is gone ({@code FAILOVER}, a claim with a higher token). Off, nobody runs them again by themselves: the new
 * owner records them {@code FAILED}, and an operator re-runs the failed items ({@code rerun}, source {@code RETRY}, a
 * higher token again). The drill re-runs them while the copy is still frozen, so that both cells end in the same
 * judgement. Had nobody re-run them, the frozen runs' writes would be the only ones for their regions and fire, and
 * would stand: nothing lost, nothing written twice, though the ledger says the runs failed.
 *
 * <p>Judged from what the processes and the database recorded: each frozen run's write refused ({@code FENCED_OUT} in
 * the frozen copy's {@code /actuator/sharding}), each of their rows written by the successor with the token its log
 * names, higher than the frozen run's, and every region of the fire settled by exactly one accepted write. Thawed, a
 * frozen run races the interrupt its copy sends on noticing its lost session; one interrupted in its sleep never writes,
 * which the drill counts apart, and a cell in which every frozen run was interrupted is aborted (it had nothing to
 * refuse) rather than passed.
 */
class FencedWritesAcrossProcessesIT {

    private static final String SUITE = "fenced-writes";

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    /** Longer than the polls that catch a copy inside its items, shorter than the time between fires. */
    private static final Duration ITEM_DURATION = Duration.ofSeconds(3);

    private static final Duration GENEROUS = Duration.ofSeconds(60);

    private static final List<String> REGIONS = List.of("Beijing", "Shanghai", "Guangzhou", "Shenzhen");

    private final ProcessGroup processes = new ProcessGroup();

    private SharedDatabase database;

    @AfterEach
    void stopEverything() throws Exception {
        processes.close();
        if (database != null) {
            database.close();
        }
    }

    static Stream<Arguments> cells() {
        return Stream.of(
                Arguments.of("h2", "on"),
                Arguments.of("h2", "off"),
                Arguments.of("postgres", "on"),
                Arguments.of("postgres", "off"));
    }

    @ParameterizedTest(name = "{0}, failover {1}")
    @MethodSource("cells")
    void aCopyFrozenPastItsSessionHasEveryWriteRefusedWhileItsSuccessorsRowsStand(String db, String failover) {
        Instant drillStart = Instant.now();
        database = db.equals("h2") ? SharedDatabase.h2() : SharedDatabase.postgres("fenced_drill_" + failover);
        boolean failoverOn = failover.equals("on");
        List<SampleApp> apps = startTwoCopies(db + "-failover-" + failover, failoverOn);
        String leader = apps.get(0).job(SETTLEMENT).leader();
        // The copy that does not lead is frozen: the survivor, already leading, reassigns and audits at once.
        SampleApp frozen = apps.stream()
                .filter(app -> !app.instanceId().equals(leader))
                .findFirst()
                .orElseThrow();
        SampleApp survivor =
                apps.stream().filter(app -> app != frozen).findFirst().orElseThrow();

        Freeze freeze = freezePastItsSession(frozen, survivor, failoverOn);

        List<Run> successors = judgeTheSuccessorsRows(survivor, freeze.inside());
        Ends ends = judgeTheFrozenRuns(frozen, freeze);
        Set<Instant> fires = freeze.inside().stream().map(Run::fireTime).collect(Collectors.toCollection(TreeSet::new));
        int accepted = judgeEveryRegionSettledOnce(apps, fires, ends.refused());
        Timings.report(
                "fenced drill [" + db + ", failover " + failover + "]",
                "froze " + frozen.instanceId() + " inside " + freeze.inside() + " for "
                        + Duration.between(freeze.frozenAt(), freeze.thawedAt()).toMillis()
                        + " ms; its session was gone after " + freeze.sessionGoneAfter() + " ms; "
                        + survivor.instanceId() + " wrote " + successors + " (" + freeze.successorSource() + ") "
                        + freeze.successorWroteAfter() + " ms after the freeze; writes accepted " + accepted
                        + ", refused " + ends.refused() + " (FENCED_OUT), frozen runs interrupted before their write "
                        + ends.interrupted() + "; rows of the fire " + regionsSettled(fires)
                        + ", each region once; took "
                        + Timings.millisSince(drillStart) + " ms");
        assumeTrue(
                ends.refused() > 0,
                "every frozen run was interrupted before its write: the cell held, but had no write to refuse");
    }

    /**
     * Freezes {@code frozen} inside its items of a fire, holds it until its session is gone and {@code survivor} wrote
     * those regions (taking them over, or re-running them once recorded failed), then thaws it and waits for its frozen
     * runs to end.
     */
    private Freeze freezePastItsSession(SampleApp frozen, SampleApp survivor, boolean failoverOn) {
        List<Execution> endedBefore = awaitInsideItsItems(frozen);
        frozen.freeze();
        Instant frozenAt = Instant.now();
        // Every run the copy had begun and not ended, read from its output, which a frozen copy no longer writes.
        List<Run> inside = SettlementRuns.of(frozen).stream()
                .filter(run -> endedBefore.stream().noneMatch(run::isOf))
                .toList();
        assertThat(inside).as("runs %s was inside when frozen", frozen).isNotEmpty();
        await("the frozen copy's session expired and its items owned by " + survivor)
                .atMost(SESSION_TIMEOUT.plus(GENEROUS))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(survivor.job(SETTLEMENT).instances())
                        .extracting(ShardingJson.Instance::id)
                        .containsExactly(survivor.instanceId()));
        long sessionGoneAfter = Timings.millisSince(frozenAt);
        if (!failoverOn) {
            rerunFailedItems(survivor, inside);
        }
        String successorSource = failoverOn ? "FAILOVER" : "RETRY";
        await("the frozen runs' regions settled by " + survivor + " (" + successorSource + ")")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    for (Run run : inside) {
                        assertThat(database.settlement(run.region(), run.fireTime()))
                                .hasValueSatisfying(
                                        row -> assertThat(row.settledBy()).isEqualTo(survivor.instanceId()));
                        assertThat(runsOf(survivor, run))
                                .filteredOn(execution -> execution.source().equals(successorSource))
                                .extracting(Execution::outcome)
                                .containsExactly("SUCCESS");
                    }
                });
        long successorWroteAfter = Timings.millisSince(frozenAt);
        Instant thawedAt = Instant.now();
        frozen.thaw();
        await("the frozen runs ended on the thawed copy")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(inside)
                        .allSatisfy(run -> assertThat(runsOf(frozen, run)).isNotEmpty()));
        return new Freeze(inside, frozenAt, sessionGoneAfter, successorSource, successorWroteAfter, thawedAt);
    }

    /**
     * Asserts that the fault happened, each frozen run inside the job from before the freeze until after the thaw, and
     * that no write of theirs was accepted: thawed, a run races the interrupt its copy sends on noticing the lost
     * session, so it either writes and is refused, or is interrupted in its settlement's sleep and never writes.
     */
    private static Ends judgeTheFrozenRuns(SampleApp frozen, Freeze freeze) {
        int refused = 0;
        int interrupted = 0;
        for (Run run : freeze.inside()) {
            List<Execution> runs = runsOf(frozen, run);
            assertThat(runs).as("the frozen copy's runs of %s", run).hasSize(1);
            Execution ended = runs.get(0);
            assertThat(ended.start()).as("start of %s", run).isBefore(freeze.frozenAt());
            assertThat(ended.end()).as("end of %s", run).isAfter(freeze.thawedAt());
            if (ended.outcome().equals("FENCED_OUT")) {
                assertThat(ended.failure()).as("refusal of %s", run).contains(Long.toString(run.token()));
                refused++;
            } else {
                assertThat(ended.failure())
                        .as("how %s ended (%s), neither refused nor interrupted before its write", run, ended.outcome())
                        .contains("InterruptedException");
                interrupted++;
            }
        }
        return new Ends(refused, interrupted);
    }

    /** Asserts that the row of each frozen run is the successor's, with the token its log names, higher: its runs. */
    private List<Run> judgeTheSuccessorsRows(SampleApp survivor, List<Run> inside) {
        List<Run> successors = new ArrayList<>();
        for (Run run : inside) {
            Run successor = SettlementRuns.last(survivor, run.item(), run.fireTime())
                    .orElseThrow(() -> new AssertionError(survivor + " logged no run of " + run));
            successors.add(successor);
            assertThat(successor.token()).as("successor's token of %s", run).isGreaterThan(run.token());
            assertThat(database.settlement(run.region(), run.fireTime()))
                    .as("row of %s", run)
                    .contains(new SharedDatabase.Settlement(run.region(), survivor.instanceId(), successor.token()));
        }
        return successors;
    }

    /**
     * Asserts that every region of each drilled fire was settled once: one row each, one accepted write each, and the
     * refusals the frozen runs' records counted.
     *
     * @return the writes accepted
     */
    private int judgeEveryRegionSettledOnce(List<SampleApp> apps, Set<Instant> fires, int refused) {
        int accepted = 0;
        int refusedRecords = 0;
        for (Instant fire : fires) {
            List<Execution> runs = executions(apps, SETTLEMENT).stream()
                    .filter(execution -> execution.fireTime().equals(fire))
                    .toList();
            assertThat(runs)
                    .as("accepted writes of the fire of %s", fire)
                    .filteredOn(execution -> execution.outcome().equals("SUCCESS"))
                    .extracting(Execution::item)
                    .containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(runs).extracting(Execution::outcome).isSubsetOf("SUCCESS", "FENCED_OUT", "FAILED");
            assertThat(database.regionsSettled(fire))
                    .as("regions settled for the fire of %s", fire)
                    .containsExactlyInAnyOrderElementsOf(REGIONS);
            accepted += (int)
                    runs.stream().filter(run -> run.outcome().equals("SUCCESS")).count();
            refusedRecords += (int) runs.stream()
                    .filter(run -> run.outcome().equals("FENCED_OUT"))
                    .count();
        }
        assertThat(refusedRecords).as("refusals recorded").isEqualTo(refused);
        return accepted;
    }

    private List<SampleApp> startTwoCopies(String cell, boolean failover) {
        ZooKeeperServers.Server zooKeeper = ZooKeeperServers.standalone(processes, SUITE + "/" + cell + "/zookeeper");
        List<String> properties = new ArrayList<>(List.of(
                "sharding.zookeeper.session-timeout=" + SESSION_TIMEOUT.toSeconds() + "s",
                "sharding.jobs.orderSettlement.cron=*/5 * * * * *",
                "sharding.jobs.orderSettlement.failover=" + failover,
                "sharding.jobs.warehouseStock.cron=0 0 0 1 1 *",
                "sample.report-export.enabled=false",
                "sample.settlement-export.enabled=false",
                "sample.settlement-duration=" + ITEM_DURATION.toSeconds() + "s"));
        properties.addAll(database.copyProperties());
        List<SampleApp> apps = new ArrayList<>();
        for (int n = 1; n <= 2; n++) {
            String instanceId = "app-" + n;
            // The output is appended to: the drill reads the runs a copy logged, so an earlier build's must go.
            deleteOutput(cell, instanceId);
            apps.add(SampleApp.start(processes, SUITE + "/" + cell, instanceId, zooKeeper.address(), properties));
        }
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(180)));
        await("a complete assignment over both copies")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertCompleteAssignment(apps, SETTLEMENT, 4));
        return apps;
    }

    private static void deleteOutput(String cell, String instanceId) {
        try {
            Files.deleteIfExists(ProcessGroup.workDirectory(SUITE + "/" + cell).resolve(instanceId + ".log"));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Waits for the copy to be between fires, then inside its items of the next one: each item marked running has
     * logged its start and not ended.
     *
     * @return the copy's runs that had ended then
     */
    private static List<Execution> awaitInsideItsItems(SampleApp app) {
        await(app + " between fires")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> running(app).isEmpty());
        AtomicReference<List<Execution>> ended = new AtomicReference<>();
        await(app + " inside its items")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> {
                    List<Integer> items = running(app);
                    ended.set(app.job(SETTLEMENT).recentExecutions());
                    return !items.isEmpty()
                            && items.stream()
                                    .allMatch(item -> SettlementRuns.last(app, item, null)
                                            .filter(run -> ended.get().stream().noneMatch(run::isOf))
                                            .isPresent());
                });
        return ended.get();
    }

    /**
     * With failover off, the frozen runs are recorded failed by their items' new owner once the session is gone: asks
     * for their fires' re-run, as an operator does, until each frozen run's item ran again there. The endpoint refuses
     * the re-run (400) until the failure is recorded, and while the re-run is under way (409).
     */
    private static void rerunFailedItems(SampleApp survivor, List<Run> runs) {
        Set<Instant> fires = runs.stream().map(Run::fireTime).collect(Collectors.toCollection(TreeSet::new));
        await("the re-run of the frozen runs' items on " + survivor)
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> {
                    List<Execution> executions = survivor.job(SETTLEMENT).recentExecutions();
                    List<Run> waiting = runs.stream()
                            .filter(run -> executions.stream()
                                    .noneMatch(execution -> run.isOf(execution)
                                            && execution.source().equals("RETRY")))
                            .toList();
                    fires.stream()
                            .filter(fire -> waiting.stream()
                                    .anyMatch(run -> run.fireTime().equals(fire)))
                            .forEach(fire -> rerun(survivor, fire));
                    return waiting.isEmpty();
                });
    }

    /** Asks for the re-run of the fire's failed items; a refusal only means it is too early or under way. */
    private static void rerun(SampleApp app, Instant fire) {
        try {
            app.operate(SETTLEMENT, "{\"action\":\"rerun\",\"fireTime\":\"" + fire + "\"}");
        } catch (IllegalStateException notNow) {
            // Asked again at the next poll.
        }
    }

    /** The items the copy owns that are marked running now. */
    private static List<Integer> running(SampleApp app) {
        return app.job(SETTLEMENT).items().stream()
                .filter(item -> app.instanceId().equals(item.instance()) && item.running())
                .map(Item::item)
                .toList();
    }

    /** The copy's executions of the run's item and fire. */
    private static List<Execution> runsOf(SampleApp app, Run run) {
        return app.job(SETTLEMENT).recentExecutions().stream().filter(run::isOf).toList();
    }

    private Map<Instant, List<String>> regionsSettled(Set<Instant> fires) {
        return fires.stream().collect(Collectors.toMap(fire -> fire, database::regionsSettled));
    }

    /** The frozen copy's runs, and when the drill froze it, saw its session gone, saw the successor write, thawed it. */
    private record Freeze(
            List<Run> inside,
            Instant frozenAt,
            long sessionGoneAfter,
            String successorSource,
            long successorWroteAfter,
            Instant thawedAt) {}

    /** How the frozen runs ended: their write refused, or interrupted before they wrote. */
    private record Ends(int refused, int interrupted) {}
}
