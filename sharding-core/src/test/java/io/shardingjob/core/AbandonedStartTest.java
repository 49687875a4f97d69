package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.scheduling.session.ConnectionGuard;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * A run abandoned while the write of its start is on its way (its instance interrupts its runs, or stops) never
 * started: it never enters the job's code, whenever the answer comes, and its item runs once, as the fire's own run.
 */
class AbandonedStartTest extends FailoverTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    private static final JobNodes NODES = new JobNodes("settlement");

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void aRunAbandonedWhileItsStartIsOnItsWayNeverEntersTheJobAndRunsOnceAsTheFiresOwnRun(boolean failover)
            throws Exception {
        JobConfiguration config = JobConfiguration.builder("settlement")
                .cron("* * * * * *")
                .shardingTotalCount(2)
                .failover(failover)
                .build();
        // One item thread for both items: the second waits in the queue, and writes its start once the first, held
        // until the test lets it go, returned.
        CountDownLatch firstGoes = new CountDownLatch(1);
        AtomicInteger first = new AtomicInteger(-1);
        Worker b = startWorker("b", config, item -> holdFirst(first, firstGoes, item), Duration.ofSeconds(10), 1);
        awaitSettled(b);
        ListAppender<ILoggingEvent> guard = new ListAppender<>();
        guard.start();
        ((Logger) LoggerFactory.getLogger(ConnectionGuard.class)).addAppender(guard);
        try {
            Instant fire = now();
            fireAll(fire, b);
            await().atMost(WITHIN).until(() -> first.get() >= 0);
            int queued = 1 - first.get();
            // As a follower cut off from its leader: nothing but pings gets through. The first item's end is sent and
            // waits, and the start of the queued item, which leaves the queue at once, waits behind it (the job's
            // ledger writes go one at a time). A third of a session timeout later the instance interrupts its runs.
            b.proxy().passPingsOnly();
            firstGoes.countDown();
            await().atMost(WITHIN).until(() -> b.proxy().holdsPacketNaming(NODES.ledgerFire(fire)));
            await().atMost(WITHIN)
                    .until(() -> guard.list.stream()
                            .anyMatch(event -> event.getFormattedMessage().contains("interrupting items")));
            // The start is answered, written, after its run was abandoned.
            b.proxy().passAll();

            LedgerParts ledger = LedgerParts.of(b.client(), NODES);
            await().atMost(WITHIN)
                    .untilAsserted(() -> assertThat(ledger.reads()
                                    .read(List.of(fire))
                                    .get(0)
                                    .claims()
                                    .get(queued)
                                    .state())
                            .isEqualTo(ClaimState.DONE));
            // Its only run is the one its owner's audit took over: nothing of the abandoned one ran, so not failover.
            assertThat(recorder.runs())
                    .filteredOn(run -> run.item() == queued && run.fireTime().equals(fire))
                    .singleElement()
                    .satisfies(run -> {
                        assertThat(run.completed()).isTrue();
                        assertThat(run.source()).isEqualTo(ExecutionSource.NORMAL);
                    });
            assertThat(recorder.overlaps()).isEmpty();
            // And its start had been written when it was given up: created, started, handed on, then taken over,
            // started and done. A run given up before it wrote its start would show one write less.
            assertThat(b.client()
                            .checkExists()
                            .forPath(NODES.claim(fire, queued))
                            .getVersion())
                    .isEqualTo(5);
        } finally {
            // A failed wait must not leave the worker unable to leave at the test's end.
            b.proxy().passAll();
            ((Logger) LoggerFactory.getLogger(ConnectionGuard.class)).detachAppender(guard);
        }
    }

    /** How long an item runs: the first one to run, until it is let go; any other, not at all. */
    private static long holdFirst(AtomicInteger first, CountDownLatch goes, int item) {
        if (first.compareAndSet(-1, item)) {
            try {
                goes.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return 0;
    }
}
