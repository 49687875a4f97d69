package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.stereotype.Component;

/**
 * Jobs in Berlin on a clock moved across Berlin's next real daylight-saving changes, on real ZooKeeper, judged from
 * the execution log: a repeated wall-clock time fires once, a skipped one not at all, no fire identity twice, and a jump
 * over a change makes up only the fires that were due.
 */
@ShardingTest
class DaylightSavingTests {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Component
    static class NightlyJobs {

        @ShardedJob(
                name = "nightly",
                cron = "0 30 2 * * *",
                timeZone = "Europe/Berlin",
                shardingTotalCount = 2,
                misfirePolicy = MisfirePolicy.ALL)
        void settle(ShardingContext context) {}
    }

    @Component
    static class MinutelyJobs {

        @ShardedJob(
                name = "minutely",
                cron = "0 * * * * *",
                timeZone = "Europe/Berlin",
                shardingTotalCount = 2,
                misfirePolicy = MisfirePolicy.ALL)
        void tick(ShardingContext context) {}
    }

    @Test
    void aNightlyJobAtTwoThirtyFiresOnceOnTheNightItHappensTwice(ShardingCluster cluster) {
        // 03:00 +02:00 becomes 02:00 +01:00: 02:30 is first at the change minus 30 minutes, again 30 minutes after.
        Instant change = next(BERLIN, ZoneOffsetTransition::isOverlap);
        cluster.clock().moveTo(change.minus(Duration.ofHours(2)));
        start(cluster, NightlyJobs.class, "nightly");

        Instant first = cluster.clock().moveTo(change.minus(Duration.ofMinutes(30)));
        cluster.awaitFire("nightly", first, PATIENCE).assertEveryItemRanOnce();
        // The second 02:30 is no fire: had it been scheduled, the move to the next night would fire it late.
        cluster.clock().moveTo(change.plus(Duration.ofMinutes(31)));
        // 02:30 +01:00 the next night: winter time, 24 hours and a half after the change.
        Instant nextNight =
                cluster.clock().moveTo(change.plus(Duration.ofHours(24).plusMinutes(30)));
        cluster.awaitFire("nightly", nextNight, PATIENCE).assertEveryItemRanOnce();

        assertThat(cluster.runs("nightly"))
                .extracting(ExecutionRecord::fireTime)
                .containsExactlyInAnyOrder(first, first, nextNight, nextNight);
        assertNoFireIdentityTwice(cluster.runs("nightly"));
    }

    @Test
    void aNightlyJobAtTwoThirtyDoesNotFireOnTheNightTwoThirtyDoesNotExistAndMakesNothingUp(ShardingCluster cluster) {
        // 02:00 +01:00 becomes 03:00 +02:00.
        Instant change = next(BERLIN, ZoneOffsetTransition::isGap);
        Instant nightBefore = change.minus(Duration.ofHours(23).plusMinutes(30));
        cluster.clock().moveTo(nightBefore.minus(Duration.ofMinutes(10)));
        start(cluster, NightlyJobs.class, "nightly");

        cluster.clock().moveTo(nightBefore);
        cluster.awaitFire("nightly", nightBefore, PATIENCE).assertEveryItemRanOnce();
        cluster.clock().moveTo(change.plus(Duration.ofMinutes(30)));
        // 02:30 +02:00 the night after the change: 23 hours after 03:30 +02:00.
        Instant nightAfter =
                cluster.clock().moveTo(change.plus(Duration.ofHours(23).plusMinutes(30)));
        cluster.awaitFire("nightly", nightAfter, PATIENCE).assertEveryItemRanOnce();

        assertThat(cluster.runs("nightly"))
                .extracting(ExecutionRecord::fireTime)
                .containsExactlyInAnyOrder(nightBefore, nightBefore, nightAfter, nightAfter);
    }

    @Test
    void aJumpOverTheMissingHourMakesUpTheFiveMissedMinutesThatExistAndNoneOfTheSixtyThatDoNot(
            ShardingCluster cluster) {
        Instant change = next(BERLIN, ZoneOffsetTransition::isGap);
        cluster.clock().moveTo(change.minus(Duration.ofMinutes(3)).plusSeconds(30));
        start(cluster, MinutelyJobs.class, "minutely");

        // From 01:57:30 +01:00 to 03:03:30 +02:00, six minutes of time: 01:58 fires late, 01:59 and 03:00 to 03:03 are
        // missed; 02:00 to 02:59 never were.
        cluster.clock().advance(Duration.ofMinutes(6));
        await().atMost(PATIENCE).until(() -> cluster.runs("minutely").size() == 2);
        cluster.clock().moveTo(minutes(change, 4));

        List<Instant> madeUp =
                List.of(minutes(change, -1), change, minutes(change, 1), minutes(change, 2), minutes(change, 3));
        assertMadeUp(cluster, madeUp);
        assertThat(cluster.runs("minutely"))
                .filteredOn(run -> run.source() == ExecutionSource.NORMAL)
                .extracting(ExecutionRecord::fireTime)
                .containsExactlyInAnyOrder(
                        minutes(change, -2), minutes(change, -2), minutes(change, 4), minutes(change, 4));
    }

    @Test
    void aJumpIntoTheHourThatHappensTwiceMakesUpOnlyItsNewTimes(ShardingCluster cluster) {
        // 03:00 +02:00 becomes 02:00 +01:00; the change is at 02:00 +01:00, and 03:00 +01:00 an hour later.
        Instant change = next(BERLIN, ZoneOffsetTransition::isOverlap);
        Instant three = minutes(change, 60);
        cluster.clock().moveTo(minutes(change, -3).plusSeconds(30));
        start(cluster, MinutelyJobs.class, "minutely");

        // From 02:57:30 +02:00 to 03:05:30 +01:00: 02:58 +02:00 fires late; 02:59 +02:00 and 03:00 to 03:05 +01:00 are
        // missed. The second 02:00 to 02:59 are no fires: Spring's cron alone would count every one of them.
        cluster.clock().moveTo(minutes(three, 5).plusSeconds(30));
        await().atMost(PATIENCE).until(() -> cluster.runs("minutely").size() == 2);
        cluster.clock().moveTo(minutes(three, 6));

        // 02:59 +02:00 is an hour old by then, past the catch-up horizon (ten minutes): recorded skipped, not run.
        List<Instant> madeUp = IntStream.rangeClosed(0, 5)
                .mapToObj(minute -> minutes(three, minute))
                .toList();
        assertMadeUp(cluster, madeUp);
        assertThat(cluster.runs("minutely"))
                .filteredOn(run -> run.source() == ExecutionSource.NORMAL)
                .extracting(ExecutionRecord::fireTime)
                .containsExactlyInAnyOrder(
                        minutes(change, -2), minutes(change, -2), minutes(three, 6), minutes(three, 6));
    }

    private static void start(ShardingCluster cluster, Class<?> jobs, String job) {
        cluster.start("app-1", jobs);
        cluster.start("app-2", jobs);
        cluster.awaitSettled(job);
    }

    private static void assertMadeUp(ShardingCluster cluster, List<Instant> fires) {
        await().atMost(PATIENCE)
                .until(() -> cluster.runs("minutely").stream()
                                .filter(run -> run.source() == ExecutionSource.MISFIRE)
                                .count()
                        >= 2L * fires.size());
        List<ExecutionRecord> runs = cluster.runs("minutely");
        assertThat(runs)
                .filteredOn(run -> run.source() == ExecutionSource.MISFIRE)
                .extracting(ExecutionRecord::fireTime)
                .isSubsetOf(fires)
                .hasSize(2 * fires.size());
        assertNoFireIdentityTwice(runs);
    }

    private static void assertNoFireIdentityTwice(List<ExecutionRecord> runs) {
        assertThat(runs).extracting(run -> run.fireTime() + "#" + run.item()).doesNotHaveDuplicates();
    }

    /** The zone's next change of this kind at least two days ahead, so that the clock reaches it only when moved. */
    private static Instant next(ZoneId zone, Predicate<ZoneOffsetTransition> kind) {
        ZoneOffsetTransition transition =
                zone.getRules().nextTransition(Instant.now().plus(Duration.ofDays(2)));
        while (!kind.test(transition)) {
            transition = zone.getRules().nextTransition(transition.getInstant());
        }
        return transition.getInstant();
    }

    private static Instant minutes(Instant from, int minutes) {
        return from.plus(Duration.ofMinutes(minutes));
    }
}
