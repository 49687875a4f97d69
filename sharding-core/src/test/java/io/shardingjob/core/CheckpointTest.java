package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ItemResult;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An item resumes where its last run stopped: the checkpoints a run saves are kept in its claim, a run that continues
 * it (a retry, a take-over, a re-run of a failed item) starts from the last one, and a new fire starts clean. Only the
 * run that owns the item can save one: a run taken over learns it is a zombie from its next save.
 */
class CheckpointTest extends JobInstanceTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static final int UNITS = 10;

    /** Every unit each run processed, by the instance that ran it, in order. */
    private final List<String> processed = new CopyOnWriteArrayList<>();

    @Test
    void aRetryResumesFromTheLastCheckpointItsFailedRunSavedAndANewFireStartsClean() throws Exception {
        JobConfiguration config = JobConfiguration.builder("export")
                .cron("0 0 0 * * *")
                .retries(1)
                .build();
        AtomicBoolean failedOnce = new AtomicBoolean();
        Instance instance = start(
                "only",
                config,
                context -> process(context, "only", unit -> {
                    if (unit == 5 && failedOnce.compareAndSet(false, true)) {
                        throw new IllegalStateException("the store hiccuped at unit 5");
                    }
                }));
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));

        FireReport first = instance.coordinator().fire(ExecutionSource.NORMAL, now());

        assertThat(first.results()).extracting(ItemResult::succeeded).containsExactly(false, true);
        // Saved after units 0-1 and 2-3: the failed run was at unit 5, and the retry starts again at unit 4.
        assertThat(processed)
                .containsExactly(
                        "only:0", "only:1", "only:2", "only:3", "only:4", "only:5", "only:4", "only:5", "only:6",
                        "only:7", "only:8", "only:9");

        processed.clear();
        instance.coordinator().fire(ExecutionSource.NORMAL, now().plusSeconds(1));
        assertThat(processed).as("a new fire").first().isEqualTo("only:0");
    }

    @ParameterizedTest(name = "crashed after {0} units")
    @ValueSource(ints = {3, 8})
    void aTakeOverResumesFromTheLastCheckpointOfTheRunItContinues(int unitsBeforeTheCrash) throws Exception {
        JobConfiguration config = JobConfiguration.builder("export")
                .cron("0 0 0 * * *")
                .failover(true)
                .build();
        CountDownLatch cut = new CountDownLatch(1);
        Instance first = start(
                "a-first",
                config,
                context -> process(context, "a-first", unit -> {
                    if (unit == unitsBeforeTheCrash) {
                        cut.countDown();
                        // The process dies here: its thread never goes on.
                        new CountDownLatch(1).await();
                    }
                }));
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(first)));
        Instant fireTime = now();
        CompletableFuture.runAsync(() -> first.coordinator().fire(ExecutionSource.NORMAL, fireTime));
        assertThat(cut.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Instance next = start("b-next", config, context -> process(context, "b-next", unit -> {}));

        crash(first);

        await().atMost(WITHIN).until(() -> processed.contains("b-next:9"));
        int resumedAt = unitsBeforeTheCrash - unitsBeforeTheCrash % 2;
        assertThat(processed.stream().filter(unit -> unit.startsWith("b-next:")))
                .as("the take-over's units, from the last checkpoint the first run saved")
                .first()
                .isEqualTo("b-next:" + resumedAt);
        assertThat(results(result -> result.context().instanceId().equals("b-next")))
                .singleElement()
                .satisfies(result -> assertThat(result.source()).isEqualTo(ExecutionSource.FAILOVER));
        assertThat(next.coordinator().isStarted()).isTrue();
    }

    @Test
    void aRerunOfAFailedItemResumesFromItsLastCheckpoint() throws Exception {
        JobConfiguration config =
                JobConfiguration.builder("export").cron("0 0 0 * * *").build();
        AtomicBoolean failedOnce = new AtomicBoolean();
        Instance instance = start(
                "only",
                config,
                context -> process(context, "only", unit -> {
                    if (unit == 7 && failedOnce.compareAndSet(false, true)) {
                        throw new IllegalStateException("the store was down at unit 7");
                    }
                }));
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));
        Instant fireTime = now();
        instance.coordinator().fire(ExecutionSource.NORMAL, fireTime);
        processed.clear();

        assertThat(instance.coordinator().rerunFailed(fireTime)).containsExactly(0);

        await().atMost(WITHIN).until(() -> processed.contains("only:9"));
        assertThat(processed).first().isEqualTo("only:6");
    }

    @Test
    void aRunTakenOverWhileInsideTheJobLearnsItFromItsNextSaveAndIsReportedFencedOut() throws Exception {
        JobConfiguration config = JobConfiguration.builder("export")
                .cron("0 0 0 * * *")
                .failover(true)
                .retries(2)
                .build();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Instance zombie = start(
                "z-zombie",
                config,
                context -> process(context, "z-zombie", unit -> {
                    if (unit == 3 && context.instanceId().equals("z-zombie")) {
                        inside.countDown();
                        while (!resume.await(100, TimeUnit.MILLISECONDS)) {
                            // A paused process: nothing reaches it until it resumes.
                        }
                    }
                }));
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(zombie)));
        CompletableFuture<FireReport> zombieFire =
                CompletableFuture.supplyAsync(() -> zombie.coordinator().fire(ExecutionSource.NORMAL, now()));
        assertThat(inside.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();
        start("a-successor", config, context -> process(context, "a-successor", unit -> {}));

        expireSession(zombie.client());
        await().atMost(WITHIN).until(() -> processed.contains("a-successor:9"));
        resume.countDown();

        assertThat(zombieFire.get(WITHIN.toSeconds(), TimeUnit.SECONDS).results())
                .singleElement()
                .satisfies(result -> assertThat(result.fencedOut())
                        .as("fenced out, not retried")
                        .isTrue());
        assertThat(processed).as("the zombie stopped at its save").doesNotContain("z-zombie:4", "z-zombie:5");
    }

    @Test
    void operatorsSeeTheLastCheckpointOfARunningItemInTheLedger() throws Exception {
        JobConfiguration config =
                JobConfiguration.builder("export").cron("0 0 0 * * *").build();
        CountDownLatch saved = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Instance instance = start("only", config, context -> {
            context.saveCheckpoint("page=12");
            saved.countDown();
            finish.await(WITHIN.toSeconds(), TimeUnit.SECONDS);
        });
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));
        CompletableFuture<FireReport> fire =
                CompletableFuture.supplyAsync(() -> instance.coordinator().fire(ExecutionSource.NORMAL, now()));
        assertThat(saved.await(WITHIN.toSeconds(), TimeUnit.SECONDS)).isTrue();

        assertThat(instance.coordinator().ledger().checkpoints()).containsExactly(java.util.Map.entry(0, "page=12"));
        assertThat(instance.coordinator().ledger().recentFires(1))
                .singleElement()
                .satisfies(recent -> assertThat(recent.items())
                        .singleElement()
                        .satisfies(item -> assertThat(item.checkpoint()).isEqualTo("page=12")));
        finish.countDown();
        assertThat(fire.get(WITHIN.toSeconds(), TimeUnit.SECONDS).results())
                .singleElement()
                .satisfies(result -> assertThat(result.succeeded()).isTrue());
    }

    @Test
    void aCheckpointLargerThanAClaimCarriesIsRefusedNamingTheJobAndTheItem() throws Exception {
        JobConfiguration config =
                JobConfiguration.builder("export").cron("0 0 0 * * *").build();
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        Instance instance = start("only", config, context -> {
            try {
                context.saveCheckpoint("x".repeat(ShardingContext.MAX_CHECKPOINT_BYTES + 1));
            } catch (IllegalArgumentException ex) {
                refused.add(ex);
            }
            context.saveCheckpoint("x".repeat(ShardingContext.MAX_CHECKPOINT_BYTES));
        });
        await().atMost(WITHIN).until(() -> settledAt(1, List.of(instance)));

        FireReport report = instance.coordinator().fire(ExecutionSource.NORMAL, now());

        assertThat(report.results())
                .singleElement()
                .satisfies(result -> assertThat(result.succeeded()).isTrue());
        assertThat(refused)
                .singleElement()
                .satisfies(ex -> assertThat(ex)
                        .hasMessageContaining(
                                "Job 'export': the checkpoint of item 0 is 16385 bytes, more than the" + " 16384"));
    }

    @Test
    void aContextWhoseRunIsNotExecutingHereHasNoCheckpointsToReadOrSave() {
        ShardingContext notRunning = new ShardingContext(
                "export", "task", 1, 0, "", "", 1, "only", 7, Instant.EPOCH, ExecutionSource.NORMAL, "export");

        assertThatThrownBy(notRunning::checkpoint)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Job 'export': item 0 of the fire at 1970-01-01T00:00:00Z is not running");
    }

    /** Processes the units from the last checkpoint on, saving one after every second unit. */
    private void process(ShardingContext context, String instance, UnitWork work) throws Exception {
        Optional<String> checkpoint = context.checkpoint();
        for (int unit = checkpoint.map(Integer::parseInt).orElse(0); unit < UNITS; unit++) {
            processed.add(instance + ":" + unit);
            work.on(unit);
            if (unit % 2 == 1) {
                context.saveCheckpoint(String.valueOf(unit + 1));
            }
        }
    }

    @FunctionalInterface
    private interface UnitWork {
        void on(int unit) throws Exception;
    }

    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }
}
