package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Component;

/**
 * The cluster's clock moves the instances' schedules: a job fires when the clock is moved to its time, not before, and
 * a jump over several fire times leaves the fires after the first to the misfire policy.
 */
@ShardingTest
class MovableClockTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** Tomorrow in UTC: a day whose 02:00 the real clock has not reached. */
    private static final LocalDate TOMORROW = LocalDate.now(ZoneOffset.UTC).plusDays(1);

    @Component
    static class NightlyJobs {

        @ShardedJob(name = "nightly", cron = "0 0 2 * * *", timeZone = "UTC", shardingTotalCount = 2)
        void settle(ShardingContext context) {}
    }

    @Component
    static class MinutelyJobs {

        @ShardedJob(name = "minutely", cron = "0 * * * * *", timeZone = "UTC", shardingTotalCount = 2)
        void tick(ShardingContext context) {}
    }

    /** An application that tells time by a clock of its own: the kit's wins, so that one clock moves everything. */
    @Configuration(proxyBeanMethods = false)
    static class OwnClock {

        @Bean
        Clock applicationClock() {
            return Clock.systemUTC();
        }
    }

    @Test
    void aNightlyJobFiresAtTwoWhenTheClockIsMovedThereAndNotBefore(ShardingCluster cluster) {
        cluster.clock().moveTo(TOMORROW.atTime(1, 0), ZoneOffset.UTC);
        cluster.start("app-1", NightlyJobs.class);
        cluster.start("app-2", NightlyJobs.class);
        cluster.awaitSettled("nightly");

        cluster.clock().moveTo(TOMORROW.atTime(1, 59, 58), ZoneOffset.UTC);
        assertThat(cluster.runs("nightly")).isEmpty();
        Instant two = cluster.clock().moveTo(TOMORROW.atTime(2, 0), ZoneOffset.UTC);

        FireRecord fire = cluster.awaitFire("nightly", two, PATIENCE);

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(fire.runs()).extracting(ExecutionRecord::source).containsOnly(ExecutionSource.NORMAL);
        assertThat(fire.runs()).extracting(ExecutionRecord::instance).containsExactlyInAnyOrder("app-1", "app-2");
        // Run at the clock's time: from 02:00 on, a few real seconds after it, not at the real time.
        assertThat(fire.runs()).allSatisfy(run -> assertThat(run.start()).isBetween(two, two.plus(PATIENCE)));
        assertThat(cluster.runs("nightly")).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(
            value = MisfirePolicy.class,
            names = {"ONCE", "ALL"})
    void aJumpOverSeveralFireTimesRunsTheFirstLateAndTheNextFireMakesTheOthersUpAsTheMisfirePolicySays(
            MisfirePolicy policy, ShardingCluster cluster) {
        Instant midnight = TOMORROW.atStartOfDay(ZoneOffset.UTC).toInstant();
        cluster.clock().moveTo(midnight.plusSeconds(30));
        Map<String, String> withPolicy = Map.of("sharding.jobs.minutely.misfire-policy", policy.name());
        cluster.start("app-1", List.of(MinutelyJobs.class), withPolicy);
        cluster.start("app-2", List.of(MinutelyJobs.class), withPolicy);
        cluster.awaitSettled("minutely");

        // Past 00:01 to 00:05: the timer fires 00:01 at once, late; 00:02 to 00:05 are missed, as by a process
        // asleep through them.
        cluster.clock().advance(Duration.ofMinutes(5));
        await().atMost(PATIENCE).until(() -> cluster.runs("minutely").size() == 2);
        assertThat(cluster.runs("minutely"))
                .extracting(ExecutionRecord::fireTime)
                .containsOnly(minute(midnight, 1));
        // The next fire settles, after which the ledger counts the fires before it as missed.
        cluster.clock().moveTo(minute(midnight, 6));

        List<Instant> madeUp = policy == MisfirePolicy.ONCE
                ? List.of(minute(midnight, 5))
                : List.of(minute(midnight, 2), minute(midnight, 3), minute(midnight, 4), minute(midnight, 5));
        await().atMost(PATIENCE)
                .until(() -> cluster.runs("minutely").stream()
                                .filter(run -> run.source() == ExecutionSource.MISFIRE)
                                .count()
                        == 2L * madeUp.size());
        List<ExecutionRecord> runs = cluster.runs("minutely");
        assertThat(runs)
                .filteredOn(run -> run.source() == ExecutionSource.MISFIRE)
                .extracting(ExecutionRecord::fireTime)
                .containsOnlyElementsOf(madeUp)
                .hasSize(2 * madeUp.size());
        assertThat(runs)
                .filteredOn(run -> run.source() == ExecutionSource.NORMAL)
                .extracting(ExecutionRecord::fireTime)
                .containsExactlyInAnyOrder(
                        minute(midnight, 1), minute(midnight, 1), minute(midnight, 6), minute(midnight, 6));
        assertThat(runs).extracting(ExecutionRecord::outcome).containsOnly(ExecutionRecord.Outcome.SUCCESS);
    }

    @Test
    void everyInstanceTellsTimeByTheClustersClockEvenWhenTheApplicationDeclaresAClockOfItsOwn(ShardingCluster cluster) {
        ShardingInstance instance = cluster.start("app-1", NightlyJobs.class, OwnClock.class);

        assertThat(instance.bean(Clock.class)).isSameAs(cluster.clock());
    }

    @Test
    void theClockRunsWithRealTimeAndOnlyMovesForward() {
        MovableClock clock = new MovableClock();
        Instant before = Instant.now();

        assertThat(clock.instant()).isBetween(before, Instant.now().plusMillis(1));
        Instant day = clock.advance(Duration.ofDays(1));
        assertThat(day).isAfterOrEqualTo(before.plus(Duration.ofDays(1)));
        Instant later = clock.moveTo(day.plus(Duration.ofHours(3)).truncatedTo(ChronoUnit.HOURS));
        assertThat(clock.instant()).isAfterOrEqualTo(later);

        assertThatThrownBy(() -> clock.moveTo(before))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only moves forward");
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only moves forward");
    }

    private static Instant minute(Instant midnight, int minutes) {
        return midnight.plus(Duration.ofMinutes(minutes));
    }
}
