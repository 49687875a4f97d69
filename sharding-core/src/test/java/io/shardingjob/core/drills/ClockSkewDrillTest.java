package io.shardingjob.core.drills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardingjob.core.testing.ProcessGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker whose wall clock is 20 s ahead sees a skew of about +20 s, and one on the true clock about 0: real
 * processes ({@link ClockSkewWorker}) against a ZooKeeper server on the true clock, the skewed one under Debian's
 * libfaketime ({@code LD_PRELOAD}, {@code FAKETIME="+20s"}, with {@code FAKETIME_DONT_FAKE_MONOTONIC=1} so that
 * {@code System.nanoTime}, which times the round trip, stays true). Skipped, saying why, without the {@code faketime}
 * package ({@code .ci/run} installs it).
 */
@Tag("drill")
class ClockSkewDrillTest {

    /** A small JVM that starts fast, as the drills' workers. */
    private static final List<String> WORKER_JVM = List.of("-Xmx96m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private final ProcessGroup processes = new ProcessGroup();

    private final Path directory = ProcessGroup.workDirectory("drills/clock-skew");

    private TestingServer zooKeeper;

    @BeforeEach
    void startZooKeeper() throws Exception {
        assumeTrue(
                Files.isReadable(DrillCluster.LIBFAKETIME),
                "faketime is not installed (no " + DrillCluster.LIBFAKETIME
                        + "): apt-get install faketime to run this drill");
        zooKeeper = new TestingServer(true);
    }

    @AfterEach
    void stopEverything() throws IOException {
        processes.close();
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    void aWorkerTwentySecondsAheadSeesASkewOfTwentySecondsAndOneOnTheTrueClockNone() throws Exception {
        Path ahead = directory.resolve("ahead.log");
        Path onTime = directory.resolve("on-time.log");
        Files.deleteIfExists(ahead);
        Files.deleteIfExists(onTime);
        Process skewed = processes.start(worker(), DrillCluster.skewedClock(Duration.ofSeconds(20)), ahead);
        Process trueClock = processes.start(worker(), onTime);

        long[] aheadSkew = measured(skewed, ahead);
        long[] onTimeSkew = measured(trueClock, onTime);
        System.out.printf(
                "clock-skew drill: +20s worker measured %d ms (± %d ms), true-clock worker %d ms (± %d ms)%n",
                aheadSkew[0], aheadSkew[1], onTimeSkew[0], onTimeSkew[1]);

        assertThat(aheadSkew[0]).isCloseTo(20_000L, within(1_000L));
        assertThat(aheadSkew[2]).as("exceeds the 5 s bound").isEqualTo(1);
        assertThat(Files.readString(ahead)).contains("ahead of ZooKeeper's", "sharding.zookeeper.max-clock-skew");
        assertThat(onTimeSkew[0]).isCloseTo(0L, within(1_000L));
        assertThat(onTimeSkew[2]).as("within the 5 s bound").isZero();
    }

    private List<String> worker() {
        List<String> command = new ArrayList<>();
        command.add(ProcessGroup.java());
        command.addAll(WORKER_JVM);
        command.addAll(List.of(
                "-cp",
                ProcessGroup.testClassPath(),
                ClockSkewWorker.class.getName(),
                zooKeeper.getConnectString(),
                "clock-skew-drill"));
        return command;
    }

    /** Skew ms, uncertainty ms and 1 when exceeded, from the worker's {@code skew} line once it exited. */
    private static long[] measured(Process process, Path output) throws Exception {
        assertThat(process.waitFor(90, TimeUnit.SECONDS))
                .as("worker exited, see " + output)
                .isTrue();
        String line = Files.readAllLines(output).stream()
                .filter(text -> text.startsWith("skew "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("No skew line in " + output + ":\n" + read(output)));
        String[] parts = line.split(" ");
        return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2]), Boolean.parseBoolean(parts[3]) ? 1 : 0};
    }

    private static String read(Path output) {
        try {
            return Files.readString(output);
        } catch (IOException ex) {
            return ex.toString();
        }
    }
}
