package io.shardingjob.sample.e2e;

import static io.shardingjob.sample.e2e.Drills.SETTLEMENT;
import static io.shardingjob.sample.e2e.Drills.STOCK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import io.shardingjob.sample.e2e.ShardingJson.Execution;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Drill: two copies of the packaged application and their ZooKeeper server, each process under libfaketime, cross
 * Berlin's next change from summer to winter time (03:00 +02:00 becomes 02:00 +01:00, so 02:00 to 03:00 happens twice).
 * The settlement's cron is {@code *}{@code /5 0,59 2 * * *} in Berlin: every five seconds of 02:00 and of 02:59. Each
 * wall-clock time fires once, so it fires every five seconds up to 02:59:55 +02:00 and not in the repeated 02:00 +01:00
 * (Spring's {@code @Scheduled} would fire 02:00:00 to 02:00:55 again right after the change). The stock job fires every
 * five seconds in UTC, to show the copies went on firing across the change. Judged from the copies' {@code
 * /actuator/sharding} records. Skipped, saying why, without Debian's {@code faketime} package.
 *
 * <p>Two copies of the application take from 20 s to two minutes to start on a loaded machine, so the processes do not
 * start a fixed time before the change: they read their offset from a file ({@code FAKETIME_TIMESTAMP_FILE}, read again
 * every second), start 50 minutes before it, where the settlement has no time for three-quarters of an hour, and once
 * both are ready the file moves them all to 70 s before it, still before the settlement's first time. A timer, Spring's
 * as the starter's, waits in real time for the time it armed (here 47 minutes): it sees the jump when it next wakes,
 * which the stock job's fires every five seconds make soon. The stock fires the jump passes are skipped ({@code
 * misfire=false}); it is judged from the change on. About 100 s once the copies are ready; it runs with the drills
 * ({@code -Pdrills}, tag {@code drill}).
 */
@Tag("drill")
class DaylightSavingDrillIT {

    private static final String SUITE = "daylight-saving";

    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static final Duration STARTED_BEFORE_THE_CHANGE = Duration.ofMinutes(50);

    private static final Duration MOVED_BEFORE_THE_CHANGE = Duration.ofSeconds(70);

    /** The settlement's times before the change: every five seconds of 02:59 +02:00. */
    private static final Duration FIRST_FIRE_BEFORE_THE_CHANGE = Duration.ofSeconds(60);

    private static final Duration AFTER_THE_CHANGE = Duration.ofSeconds(30);

    private static final Duration EVERY = Duration.ofSeconds(5);

    private final ProcessGroup processes = new ProcessGroup();

    @AfterEach
    void stopEverything() {
        processes.close();
    }

    @Test
    void copiesCrossingARealChangeFireEachWallClockTimeOnceAndNoFireIdentityTwice() throws IOException {
        assumeTrue(
                Files.isReadable(LIBFAKETIME),
                "faketime is not installed (no " + LIBFAKETIME + "): apt-get install faketime to run this drill");
        Instant started = Instant.now();
        Instant change = nextOverlap(BERLIN, started.plus(Duration.ofDays(2)));
        // One offset for every process, from one file: their clocks agree with each other and move together.
        Path offset = ProcessGroup.workDirectory(SUITE).resolve("faketime-offset");
        Files.createDirectories(offset.getParent());
        Files.writeString(
                offset,
                "+"
                        + Duration.between(Instant.now(), change.minus(STARTED_BEFORE_THE_CHANGE))
                                .toSeconds() + "s");
        Map<String, String> faked = Map.of(
                "LD_PRELOAD",
                LIBFAKETIME.toString(),
                "FAKETIME_TIMESTAMP_FILE",
                offset.toString(),
                "FAKETIME_CACHE_DURATION",
                "1",
                "FAKETIME_DONT_FAKE_MONOTONIC",
                "1");
        List<String> properties = List.of(
                "sharding.zookeeper.session-timeout=4s",
                "sharding.jobs.orderSettlement.cron=*/5 0,59 2 * * *",
                "sharding.jobs.orderSettlement.time-zone=Europe/Berlin",
                "sharding.jobs.orderSettlement.misfire=false",
                "sharding.jobs.warehouseStock.cron=*/5 * * * * *",
                "sharding.jobs.warehouseStock.time-zone=UTC",
                "sharding.jobs.warehouseStock.misfire=false",
                "sample.report-export.enabled=false",
                "sample.settlement-export.enabled=false");

        ZooKeeperServers.Server zooKeeper = ZooKeeperServers.standalone(processes, SUITE + "/zookeeper", faked);
        List<SampleApp> apps = Stream.of("app-1", "app-2")
                .map(id -> SampleApp.start(processes, SUITE, id, zooKeeper.address(), properties, false, faked))
                .toList();
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(240)));
        Instant ready = Instant.now();
        long crossingSeconds = Duration.between(Instant.now(), change.minus(MOVED_BEFORE_THE_CHANGE))
                .toSeconds();
        Files.writeString(offset, "+" + crossingSeconds + "s");
        Instant end = change.plus(AFTER_THE_CHANGE);
        // Until the copies' clocks passed the end, then until both answer: a loaded machine slows the endpoint too.
        await("the copies' clocks past " + end)
                .atMost(MOVED_BEFORE_THE_CHANGE.plus(AFTER_THE_CHANGE).plusSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> Instant.now().plusSeconds(crossingSeconds).isAfter(end.plus(EVERY)));
        List<List<Execution>> records = new ArrayList<>();
        await("both copies' records")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(2))
                .ignoreExceptions()
                .until(() -> {
                    records.clear();
                    records.add(records(apps, SETTLEMENT));
                    return records.add(records(apps, STOCK));
                });
        List<Execution> settlement = records.get(0);
        List<Execution> stock = records.get(1);
        TreeSet<Instant> settlementFires = fireTimes(settlement);
        TreeSet<Instant> stockFires = fireTimes(stock);
        Timings.report(
                "daylight-saving",
                "copies ready after " + Duration.between(started, ready).toSeconds() + " s, then moved (FAKETIME +"
                        + crossingSeconds + "s) across " + change + " (Europe/Berlin 03:00 +02:00 -> 02:00 +01:00): "
                        + "orderSettlement (Berlin, */5 0,59 2) fires with runs "
                        + settlementFires.headSet(change).size()
                        + " of 12 before the change, "
                        + settlementFires.tailSet(change, true).size()
                        + " after it; its runs " + settlement.size() + " (" + outcomes(settlement)
                        + "); warehouseStock (UTC) fires with runs after the change "
                        + stockFires.subSet(change, true, end, true).size() + " of 7; fire identities that succeeded "
                        + "twice: " + (succeededTwice(settlement) + succeededTwice(stock)) + ", normal runs of one "
                        + "identity: " + (normalTwice(settlement) + normalTwice(stock)) + ", runs of one identity at "
                        + "the same time: " + (atTheSameTime(settlement) + atTheSameTime(stock)) + "; crossing took "
                        + Timings.millisSince(ready) + " ms");

        // The wall-clock times of 02:59 +02:00 fired; the repeated 02:00:00 to 02:00:30 +01:00 are no fires. A loaded
        // machine may interrupt, hand on or take over an item's run (one fire identity, several records, a take-over
        // after the first run ended: the promise is never twice at the same time); it never makes a fire time the cron
        // does not have, nor two fires of one time (two normal runs of one identity).
        // Every fire time with a run is one of 02:59 +02:00 (a loaded machine may skip all items of one, still
        // running).
        assertThat(settlementFires)
                .isNotEmpty()
                .isSubsetOf(every(change.minus(FIRST_FIRE_BEFORE_THE_CHANGE), change.minus(EVERY)));
        assertThat(settlement).allSatisfy(run -> assertThat(run.source()).isNotEqualTo("MISFIRE"));
        assertThat(normalTwice(settlement)).isZero();
        assertThat(atTheSameTime(settlement)).isZero();
        // The copies went on firing across the change: the UTC job has fires after it.
        assertThat(stockFires.subSet(change, true, end, true)).isNotEmpty();
        assertThat(normalTwice(stock)).isZero();
        assertThat(atTheSameTime(stock)).isZero();
    }

    /**
     * Every record of the job on the copies, unsorted: a run handed on before it started has no start time, by which
     * {@link Drills#executions} sorts.
     */
    private static List<Execution> records(List<SampleApp> apps, String job) {
        List<Execution> all = new ArrayList<>();
        apps.forEach(app -> all.addAll(app.job(job).recentExecutions()));
        return all;
    }

    private static String outcomes(List<Execution> runs) {
        return runs.stream()
                .collect(Collectors.groupingBy(
                        run -> run.source() + " " + run.outcome(), TreeMap::new, Collectors.counting()))
                .toString();
    }

    /** How many times an item of a fire ran to success once more: the fire's identity is its time and the item. */
    private static long succeededTwice(List<Execution> runs) {
        List<String> succeeded = runs.stream()
                .filter(run -> run.outcome().equals("SUCCESS"))
                .map(run -> run.fireTime() + "#" + run.item())
                .toList();
        return succeeded.size() - succeeded.stream().distinct().count();
    }

    /** How many normal runs repeat an identity: what two fires with one fire time would give. */
    private static long normalTwice(List<Execution> runs) {
        List<String> normal = runs.stream()
                .filter(run -> run.source().equals("NORMAL") && run.start() != null)
                .map(run -> run.fireTime() + "#" + run.item())
                .toList();
        return normal.size() - normal.stream().distinct().count();
    }

    /** How many pairs of runs of one identity ran at the same time. */
    private static long atTheSameTime(List<Execution> runs) {
        List<Execution> started = runs.stream()
                .filter(run -> run.start() != null && run.end() != null)
                .toList();
        long pairs = 0;
        for (int i = 0; i < started.size(); i++) {
            for (int j = i + 1; j < started.size(); j++) {
                Execution one = started.get(i);
                Execution other = started.get(j);
                if (one.fireTime().equals(other.fireTime()) && one.item() == other.item() && one.overlaps(other)) {
                    pairs++;
                }
            }
        }
        return pairs;
    }

    private static TreeSet<Instant> fireTimes(List<Execution> runs) {
        return runs.stream().map(Execution::fireTime).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Instant> every(Instant first, Instant last) {
        return Stream.iterate(first, time -> !time.isAfter(last), time -> time.plus(EVERY))
                .toList();
    }

    private static Instant nextOverlap(ZoneId zone, Instant after) {
        ZoneOffsetTransition transition = zone.getRules().nextTransition(after);
        while (!transition.isOverlap()) {
            transition = zone.getRules().nextTransition(transition.getInstant());
        }
        return transition.getInstant();
    }
}
