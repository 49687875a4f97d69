package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.LedgerFire;
import io.shardingjob.core.internal.requests.ClientRequests;
import io.shardingjob.core.internal.requests.SessionProof;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run enters the job's code only while the session's last proof through the ensemble's leader (a write or a
 * {@code sync} answered) is no older than a third of the session timeout: a pause between its start's answer and its
 * code must not start it on a session the leader may have expired since.
 */
class SessionProofTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    /** The job's timeout: the one timer armed with it is the item's own, right before its code. */
    private static final Duration ITEM_TIMEOUT = Duration.ofSeconds(47);

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void aRunHeldAfterItsStartUntilItsProofAgedPastAThirdOfTheSessionTimeoutNeverEntersTheJobAndRunsOnceLater(
            boolean failover) throws Exception {
        JobConfiguration config = JobConfiguration.builder("proven")
                .cron("0 0 0 * * *")
                .failover(failover)
                .timeout(ITEM_TIMEOUT)
                .build();
        HoldingScheduler scheduler = new HoldingScheduler();
        closeAfterTest(scheduler::shutdownNow);
        AtomicReference<CuratorFramework> client = new AtomicReference<>();
        Queue<Duration> proofAgesAtEntry = new ConcurrentLinkedQueue<>();
        // A pause stops this instance's own proofs too: without them, only its writes prove its session.
        Instance instance = start(
                "a",
                config,
                context -> proofAgesAtEntry.add(proofAge(client.get())),
                builder -> builder.scheduler(scheduler).interruptOnConnectionLoss(false));
        client.set(instance.client());
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));

        scheduler.holdNextItem();
        Instant fire = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        CompletableFuture.runAsync(() -> instance.coordinator().fire(ExecutionSource.NORMAL, fire));
        await().atMost(WITHIN).until(scheduler::holding);
        Duration third = SESSION_TIMEOUT.dividedBy(3);
        await().atMost(WITHIN)
                .until(() -> proofAge(instance.client())
                                .compareTo(third.multipliedBy(3).dividedBy(2))
                        > 0);
        scheduler.release();

        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(
                                results(result -> result.fireTime().equals(fire)))
                        .singleElement()
                        .satisfies(result -> assertThat(result.succeeded()).isTrue()));
        assertThat(proofAgesAtEntry).allSatisfy(age -> assertThat(age).isLessThanOrEqualTo(third));
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(instance.coordinator().ledger().recentFires(5))
                        .filteredOn(recorded -> recorded.fireTime().equals(fire))
                        .singleElement()
                        .satisfies(recorded -> assertThat(recorded.items())
                                .extracting(LedgerFire.Item::state)
                                .containsExactly(ClaimState.DONE)));
    }

    private static Duration proofAge(CuratorFramework client) {
        @Nullable Duration age = new SessionProof(new ClientRequests(client, "Test"), "/").since();
        return age == null ? Duration.ofDays(1) : age;
    }

    /**
     * The coordination scheduler, which holds the item's thread once when it arms the item's timer: after its start
     * was answered, right before its code, where a pause of the process would hold it.
     */
    private static final class HoldingScheduler extends ScheduledThreadPoolExecutor {

        private final AtomicBoolean armed = new AtomicBoolean();

        private final CountDownLatch held = new CountDownLatch(1);

        private final CountDownLatch released = new CountDownLatch(1);

        HoldingScheduler() {
            super(1);
        }

        void holdNextItem() {
            armed.set(true);
        }

        boolean holding() {
            return held.getCount() == 0;
        }

        void release() {
            released.countDown();
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            if (unit.toNanos(delay) == ITEM_TIMEOUT.toNanos() && armed.compareAndSet(true, false)) {
                held.countDown();
                boolean interrupted = false;
                while (released.getCount() > 0) {
                    try {
                        released.await();
                    } catch (InterruptedException ex) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.schedule(command, delay, unit);
        }
    }
}
