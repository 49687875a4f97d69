package io.shardingjob.sample.e2e;

import static io.shardingjob.sample.e2e.Drills.SETTLEMENT;
import static io.shardingjob.sample.e2e.Drills.STOCK;
import static io.shardingjob.sample.e2e.Drills.afterMakeUps;
import static io.shardingjob.sample.e2e.Drills.assertCompleteAssignment;
import static io.shardingjob.sample.e2e.Drills.completeFires;
import static io.shardingjob.sample.e2e.Drills.executions;
import static io.shardingjob.sample.e2e.Drills.itemsOf;
import static io.shardingjob.sample.e2e.Drills.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import io.shardingjob.sample.e2e.ShardingJson.Execution;
import io.shardingjob.sample.e2e.ShardingJson.Item;
import io.shardingjob.sample.e2e.ShardingJson.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Drills 1 to 4 of the end-to-end suite on one ZooKeeper server and copies of the packaged application, each in its own
 * JVM: three copies share the work; one is killed with SIGKILL; one is stopped with SIGTERM; a fresh one joins. The
 * drills run in this order on the same processes, each starting from what the previous one left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardingAcrossProcessesIT {

    private static final String SUITE = "across-processes";

    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

    private static final Duration GENEROUS = Duration.ofSeconds(60);

    private final ProcessGroup processes = new ProcessGroup();

    private final List<SampleApp> apps = new ArrayList<>();

    private ZooKeeperServers.Server zooKeeper;

    private Instant suiteStart;

    /**
     * When drill 2's survivors owned every item: fires after it were planned without the killed copy, so none of them is
     * a fire it missed (those are made up one by one and may still run during drill 3).
     */
    private Instant killedCopyGoneAt = Instant.MIN;

    @BeforeAll
    void startZooKeeperAndThreeCopies() {
        suiteStart = Instant.now();
        zooKeeper = ZooKeeperServers.standalone(processes, SUITE + "/zookeeper");
        Instant appsStart = Instant.now();
        for (int n = 1; n <= 3; n++) {
            apps.add(SampleApp.start(processes, SUITE, "app-" + n, zooKeeper.address(), Drills.FAST_JOBS));
        }
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(180)));
        Timings.report(
                "start-up",
                "ZooKeeper ready after "
                        + Duration.between(suiteStart, appsStart).toMillis()
                        + " ms; three copies started in parallel, ready after " + Timings.millisSince(appsStart)
                        + " ms");
    }

    @AfterAll
    void stopEverything() {
        processes.close();
        if (suiteStart != null) {
            Timings.report("across-processes", "drills 1-4 took " + Timings.millisSince(suiteStart) + " ms in all");
        }
    }

    @Test
    @Order(1)
    void threeCopiesOwnEveryItemOnceAndRunEveryItemOnEveryFire() {
        Instant start = Instant.now();
        AtomicReference<Map<Integer, String>> owners = new AtomicReference<>();
        await("a complete assignment over three copies")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    owners.set(assertCompleteAssignment(apps, SETTLEMENT, 4));
                    assertCompleteAssignment(apps, STOCK, 6);
                });
        long epoch = apps.get(0).job(SETTLEMENT).epoch();
        Instant stableSince = Instant.now();

        AtomicReference<List<Instant>> fires = new AtomicReference<>();
        await("three complete fires")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    List<Execution> runs = executions(apps, SETTLEMENT);
                    fires.set(completeFires(runs, afterMakeUps(runs, stableSince), 4));
                    assertThat(fires.get()).hasSizeGreaterThanOrEqualTo(3);
                });
        List<Execution> all = executions(apps, SETTLEMENT);
        for (Instant fire : fires.get()) {
            List<Execution> runs =
                    all.stream().filter(run -> run.fireTime().equals(fire)).toList();
            assertThat(runs).as("runs of the fire of %s", fire).allSatisfy(run -> {
                assertThat(run.source()).isEqualTo("NORMAL");
                assertThat(run.outcome()).isEqualTo("SUCCESS");
                assertThat(run.epoch()).isEqualTo(epoch);
                assertThat(run.instance()).isEqualTo(owners.get().get(run.item()));
            });
            assertThat(runs).extracting(Execution::item).containsExactlyInAnyOrderElementsOf(range(4));
        }
        for (SampleApp app : apps) {
            for (int item : itemsOf(owners.get(), app.instanceId())) {
                assertThat(app.log())
                        .as("output of %s", app)
                        .contains("(item " + item + " of 4, epoch " + epoch + ") on instance " + app.instanceId());
            }
        }
        Timings.report(
                "drill 1 (three copies)",
                "assignment " + owners.get() + " at epoch " + epoch + "; "
                        + fires.get().size()
                        + " consecutive fires each ran items [0, 1, 2, 3] exactly once, by their owners; took "
                        + Timings.millisSince(start) + " ms");
    }

    @Test
    @Order(2)
    void killNineMovesTheItemsToTheSurvivorsAndFailsOverTheItemsItWasRunning() {
        SampleApp victim = leaderOf(apps);
        List<Integer> victimItems = victim.summary().job(SETTLEMENT).localItems();
        // Catch the victim at the start of a fire: first idle, then running one of its items.
        await("the victim between fires")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> runningOn(victim).isEmpty());
        AtomicReference<List<Integer>> running = new AtomicReference<>();
        await("the victim running its items")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    running.set(runningOn(victim));
                    return !running.get().isEmpty();
                });
        Instant killedAt = Instant.now();
        victim.kill();
        apps.remove(victim);

        await("the victim's items owned and run by the survivors")
                .atMost(SESSION_TIMEOUT.plus(GENEROUS))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    assertCompleteAssignment(apps, SETTLEMENT, 4);
                    assertThat(executions(apps, SETTLEMENT).stream()
                                    .filter(run -> run.start().isAfter(killedAt))
                                    .map(Execution::item))
                            .containsAll(victimItems);
                });
        long movedAfter = Timings.millisSince(killedAt);
        killedCopyGoneAt = Instant.now();

        AtomicReference<List<Execution>> failovers = new AtomicReference<>();
        await("failover of the items the victim was running")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    failovers.set(executions(apps, SETTLEMENT).stream()
                            .filter(run -> run.source().equals("FAILOVER")
                                    && run.start().isAfter(killedAt))
                            .toList());
                    assertThat(failovers.get()).extracting(Execution::item).containsAll(running.get());
                });
        Timings.report(
                "drill 2 (kill -9)",
                "killed leader " + victim.instanceId() + " owning " + victimItems + " while running " + running.get()
                        + " (session timeout " + SESSION_TIMEOUT.toMillis()
                        + " ms): survivors owned and ran them after "
                        + movedAfter + " ms; failover re-ran "
                        + failovers.get().stream()
                                .map(run -> Drills.describe(run) + " "
                                        + Duration.between(killedAt, run.start())
                                                .toMillis() + " ms after the kill")
                                .toList());
    }

    @Test
    @Order(3)
    void aGracefulStopHandsTheItemsOverAtOnceWithoutFailover() throws InterruptedException {
        SampleApp leaving = leaderOf(apps);
        apps.remove(leaving);
        SampleApp survivor = apps.get(0);
        Instant stoppedAt = Instant.now();
        leaving.stop();
        Instant exitedAt = Instant.now();
        await("the survivor owning everything")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    assertCompleteAssignment(apps, SETTLEMENT, 4);
                    assertCompleteAssignment(apps, STOCK, 6);
                    assertThat(survivor.job(SETTLEMENT).instances())
                            .extracting(ShardingJson.Instance::id)
                            .containsExactly(survivor.instanceId());
                });
        long handedOverAfterExit = Timings.millisSince(exitedAt);
        long handedOverAfterSigterm = Timings.millisSince(stoppedAt);
        // Had the leaving copy not closed its session, the survivor would have waited for it to expire.
        assertThat(Duration.ofMillis(handedOverAfterExit)).isLessThan(SESSION_TIMEOUT);

        await("two complete fires on the survivor alone")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(completeFires(executions(apps, SETTLEMENT), exitedAt, 4))
                        .hasSizeGreaterThanOrEqualTo(2));
        assertThat(executions(apps, SETTLEMENT))
                .filteredOn(
                        run -> run.start().isAfter(stoppedAt) && run.fireTime().isAfter(killedCopyGoneAt))
                .extracting(Execution::source)
                .doesNotContain("FAILOVER");
        assertThat(leaving.log()).contains("Stopping sharded jobs");
        Timings.report(
                "drill 3 (graceful stop)",
                "SIGTERM to leader " + leaving.instanceId() + ": process exited after "
                        + Duration.between(stoppedAt, exitedAt).toMillis() + " ms; " + survivor.instanceId()
                        + " owned every item " + handedOverAfterExit + " ms after the exit (" + handedOverAfterSigterm
                        + " ms after SIGTERM); no FAILOVER execution in the next fires");
    }

    @Test
    @Order(4)
    void aNewCopyGetsItemsWithoutWaitingForAFire() {
        Instant startedAt = Instant.now();
        SampleApp joining = SampleApp.start(processes, SUITE, "app-4", zooKeeper.address(), Drills.FAST_JOBS);
        joining.awaitReady(Duration.ofSeconds(120));
        Instant readyAt = Instant.now();
        apps.add(joining);
        await("the new copy owning items of both jobs")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    assertCompleteAssignment(apps, SETTLEMENT, 4);
                    assertCompleteAssignment(apps, STOCK, 6);
                });
        long ownedAfterReady = Timings.millisSince(readyAt);
        // The stock job's cron (1 January, midnight) never fires during the test: items without a fire.
        assertThat(executions(apps, STOCK)).isEmpty();
        Timings.report(
                "drill 4 (a copy joins)",
                joining.instanceId() + " ready "
                        + Duration.between(startedAt, readyAt).toMillis()
                        + " ms after its start; owned "
                        + joining.summary().job(SETTLEMENT).localItems() + " of "
                        + SETTLEMENT + " and " + joining.summary().job(STOCK).localItems() + " of " + STOCK + " "
                        + ownedAfterReady + " ms after its endpoint answered; " + STOCK + " had never fired");
    }

    private static SampleApp leaderOf(List<SampleApp> apps) {
        String leader = apps.get(0).job(SETTLEMENT).leader();
        return apps.stream()
                .filter(app -> app.instanceId().equals(leader))
                .findFirst()
                .orElseThrow(() -> new AssertionError("leader " + leader + " is none of " + apps));
    }

    /** The items the copy owns that are marked running now. */
    private static List<Integer> runningOn(SampleApp app) {
        Job job = app.job(SETTLEMENT);
        return job.items().stream()
                .filter(item -> app.instanceId().equals(item.instance()) && item.running())
                .map(Item::item)
                .toList();
    }
}
