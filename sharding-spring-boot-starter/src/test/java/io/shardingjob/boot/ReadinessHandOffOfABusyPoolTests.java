package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Two copies of one application, one of which runs its items on a single thread, so that at every fire one of its
 * items runs and the others wait in the pool's queue: when it stops being ready, what waits there and has not started
 * is run by the other copy, not here once the run before it returned.
 */
class ReadinessHandOffOfABusyPoolTests extends ReadinessCopies {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void theItemsQueuedOnAOneThreadPoolThatIsNotReadyAreRunByTheOtherInstanceOnceEach() throws Exception {
        ConfigurableApplicationContext alpha = start("alpha", "sharding.execution.pool-size=1");
        ConfigurableApplicationContext beta = start("beta");
        JobCoordinator alphaJob = job(alpha);
        JobCoordinator betaJob = job(beta);
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(alphaJob.assignment().epoch())
                    .isEqualTo(betaJob.assignment().epoch());
            assertThat(alphaJob.localItems()).hasSize(3);
            assertThat(betaJob.localItems()).hasSize(3);
        });
        BlockingQueue<Started> alphaStarts = alpha.getBean(SlowJob.class).starts;
        Started firstOfAFire = firstItemOfTheNextFire(alphaStarts);

        AvailabilityChangeEvent.publish(alpha, ReadinessState.REFUSING_TRAFFIC);

        Instant busyFire = firstOfAFire.fireTime();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(betaJob.localItems()).containsExactly(0, 1, 2, 3, 4, 5));
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(runsOf(busyFire)).hasSize(6));
        List<ExecutionRecord> ofBusyFire = runsOf(busyFire);
        assertThat(ofBusyFire.stream().map(ExecutionRecord::item))
                .as("every item of the fire that found the pool busy ran once: %s", ofBusyFire)
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        assertThat(ofBusyFire.stream().filter(run -> run.instance().equals("alpha")))
                .as("only the item that had started ran on the instance that is not ready: %s", ofBusyFire)
                .extracting(ExecutionRecord::item)
                .containsExactly(firstOfAFire.item());
        Instant moved = Instant.now();
        await().atMost(PATIENCE).until(() -> firesAfter(moved) >= 2);
        assertThat(RUNS)
                .as("no later fire runs on the instance that is not ready")
                .filteredOn(run -> run.instance().equals("alpha"))
                .allSatisfy(run -> assertThat(run.fireTime()).isBeforeOrEqualTo(busyFire));
        // The last fire's items may still run.
        Instant last = RUNS.stream()
                .map(ExecutionRecord::fireTime)
                .max(Instant::compareTo)
                .orElseThrow();
        assertEveryItemRanOnceAndNeverTwiceAtOnce(Instant.MIN, last.minusMillis(1), 6, 2);
    }

    /** The first start on the copy of an item of a fire none of whose items it had started before. */
    private static Started firstItemOfTheNextFire(BlockingQueue<Started> starts) throws InterruptedException {
        Started before = starts.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(before).as("a start on the one-thread copy").isNotNull();
        while (true) {
            Started next = starts.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(next).as("a start on the one-thread copy").isNotNull();
            if (next.fireTime().isAfter(before.fireTime())) {
                return next;
            }
            before = next;
        }
    }

    private static List<ExecutionRecord> runsOf(Instant fireTime) {
        return RUNS.stream().filter(run -> run.fireTime().equals(fireTime)).toList();
    }

    private static long firesAfter(Instant from) {
        return RUNS.stream()
                .filter(run -> run.fireTime().isAfter(from))
                .map(ExecutionRecord::fireTime)
                .distinct()
                .count();
    }

    private ConfigurableApplicationContext start(String instanceId, String... properties) {
        return start(instanceId, Service.class, (Object[]) properties);
    }

    private static JobCoordinator job(ConfigurableApplicationContext context) {
        return context.getBean(ShardingOperations.class).job(SlowJob.NAME).orElseThrow();
    }

    /** An item's start on this copy. */
    record Started(int item, Instant fireTime) {}

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        SlowJob slowJob() {
            return new SlowJob();
        }
    }

    /**
     * Six items of 700 ms every three seconds: on one thread a copy's three items of a fire take 2.1 s, so while the
     * first runs the other two wait in the queue.
     */
    static class SlowJob {

        static final String NAME = "slow";

        final BlockingQueue<Started> starts = new LinkedBlockingQueue<>();

        @ShardedJob(name = NAME, cron = "*/3 * * * * *", shardingTotalCount = 6)
        void run(ShardingContext context) throws InterruptedException {
            starts.add(new Started(context.item(), context.fireTime()));
            // Stands for work; the test waits with Awaitility.
            TimeUnit.MILLISECONDS.sleep(700);
        }
    }
}
