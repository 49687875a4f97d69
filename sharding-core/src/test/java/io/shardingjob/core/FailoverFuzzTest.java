package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The product's promise under random failures: several instances, a job firing every second, random kills (with a
 * replacement started), network partitions longer than the session timeout, and graceful restarts, for a bounded
 * time. Afterwards every item of every fire ran, with that fire's context, and no two runs of an item-fire overlapped. The one
 * exception is the misfire rule: fires that arrive while the item still runs (here or elsewhere) are folded into one
 * run after it, as the issue asks; those slots are counted apart.
 */
class FailoverFuzzTest extends FailoverTestSupport {

    private static final int ITEMS = 6;

    private static final Duration CHAOS = Duration.ofSeconds(20);

    private final List<Worker> alive = new CopyOnWriteArrayList<>();

    private final List<Instant> fires = new CopyOnWriteArrayList<>();

    /** Fires of workers that are not killed; a killed worker's threads are as good as gone. */
    private final Map<Worker, List<CompletableFuture<?>>> firing = new ConcurrentHashMap<>();

    private int next;

    @Test
    void everyItemOfEveryFireRunsAndNoRunOverlapsUnderRandomFailures() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        JobConfiguration job = JobConfiguration.builder("fuzz")
                .cron("* * * * * *")
                .shardingTotalCount(ITEMS)
                .failover(true)
                .build();
        for (int i = 0; i < 4; i++) {
            alive.add(newWorker(job, random));
        }
        await().atMost(Duration.ofSeconds(15))
                .until(() -> alive.get(0)
                                .coordinator()
                                .assignment()
                                .itemsByInstance()
                                .size()
                        == 4);
        ExecutorService firePool = Executors.newCachedThreadPool();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        ticker.scheduleAtFixedRate(() -> fireEveryInstance(firePool), 0, 1, TimeUnit.SECONDS);
        int kills = 0;
        int partitions = 0;
        int restarts = 0;
        long end = System.nanoTime() + CHAOS.toNanos();
        try {
            while (System.nanoTime() < end) {
                Thread.sleep(2000 + random.nextInt(1500));
                Worker victim = alive.get(random.nextInt(alive.size()));
                switch (random.nextInt(3)) {
                    case 0 -> {
                        kill(victim);
                        alive.remove(victim);
                        firing.remove(victim);
                        alive.add(newWorker(job, random));
                        kills++;
                    }
                    case 1 -> {
                        victim.proxy().cut();
                        // A victim killed during its partition stays dead: healing the partition must not revive it.
                        ticker.schedule(
                                () -> {
                                    if (!victim.dead().get()) {
                                        victim.proxy().restore();
                                    }
                                },
                                2500,
                                TimeUnit.MILLISECONDS);
                        partitions++;
                    }
                    default -> {
                        alive.remove(victim);
                        victim.coordinator().close();
                        alive.add(newWorker(job, random));
                        restarts++;
                    }
                }
            }
        } finally {
            ticker.shutdownNow();
            ticker.awaitTermination(5, TimeUnit.SECONDS);
            // Shutting the ticker down cancels pending heals: heal every partition now.
            alive.forEach(worker -> worker.proxy().restore());
        }
        CompletableFuture.allOf(firing.values().stream().flatMap(List::stream).toArray(CompletableFuture<?>[]::new))
                .get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    for (Worker worker : alive) {
                        assertThat(worker.coordinator().isAvailable())
                                .as(worker.id() + " available")
                                .isTrue();
                        assertThat(worker.coordinator().ledger().failoverQueue())
                                .as("failover queue")
                                .isEmpty();
                        assertThat(worker.coordinator().ledger().runningOwners())
                                .as("running claims")
                                .isEmpty();
                    }
                });

        int ownFire = 0;
        int folded = 0;
        int twice = 0;
        List<String> missed = new ArrayList<>();
        List<Run> completed = recorder.completed();
        // The last fire may still be settling when chaos stops; every earlier one must be complete.
        for (Instant fire : fires.subList(0, fires.size() - 1)) {
            for (int item = 0; item < ITEMS; item++) {
                int current = item;
                long runs = completed.stream()
                        .filter(run -> run.item() == current && run.fireTime().equals(fire))
                        .count();
                if (runs > 0) {
                    ownFire++;
                    if (runs > 1) {
                        twice++;
                        completed.stream()
                                .filter(run ->
                                        run.item() == current && run.fireTime().equals(fire))
                                .forEach(run -> System.out.println("fuzz twice: " + run));
                    }
                } else if (completed.stream()
                        .anyMatch(run -> run.item() == current
                                && run.source() == ExecutionSource.MISFIRE
                                && run.fireTime().isAfter(fire)
                                && run.start().isAfter(fire))) {
                    folded++;
                } else {
                    missed.add("item " + item + " of the fire at " + fire);
                }
            }
        }
        long failovers = completed.stream()
                .filter(run -> run.source() == ExecutionSource.FAILOVER)
                .count();
        long misfires = completed.stream()
                .filter(run -> run.source() == ExecutionSource.MISFIRE)
                .count();
        System.out.printf(
                "fuzz (seed %d, session timeout %d ms): %d fires x %d items = %d slots; %d ran for their own fire"
                        + " (%d of them twice), %d folded into a later misfire run, %d missed; %d kills,"
                        + " %d partitions, %d graceful restarts; %d completed runs (%d failover, %d misfire);"
                        + " %d overlaps of one item-fire, %d of one item across fires%n",
                seed,
                SESSION_TIMEOUT.toMillis(),
                fires.size() - 1,
                ITEMS,
                (fires.size() - 1) * ITEMS,
                ownFire,
                twice,
                folded,
                missed.size(),
                kills,
                partitions,
                restarts,
                completed.size(),
                failovers,
                misfires,
                recorder.sameFireOverlaps().size(),
                recorder.overlaps().size());
        missed.forEach(slot -> System.out.println("fuzz missed: " + slot));
        recorder.overlaps().forEach(overlap -> System.out.println("fuzz overlap (any fires): " + overlap));
        // Both halves of the promise hold strictly: no run of an item-fire overlaps another run of it, and every slot
        // ran for its own fire or was folded into a later run of its item as the misfire policy (once) says. A slot
        // may run twice only when its first run's owner was cut off or killed while running it and lost its claim.
        // Runs of one item for two different fires may overlap when a reshard moves the item while its old owner
        // still runs it and the new owner's audit has not seen that run yet: they are printed, not asserted.
        assertThat(recorder.sameFireOverlaps()).isEmpty();
        assertThat(missed).as("missed slots of %d", (fires.size() - 1) * ITEMS).isEmpty();
    }

    private Worker newWorker(JobConfiguration job, Random random) throws Exception {
        long millis = 100 + random.nextInt(200);
        return startWorker("w" + next++, job, item -> millis, Duration.ofSeconds(5));
    }

    private void fireEveryInstance(ExecutorService pool) {
        // The ledger keys fires by the millisecond; every run of the fire carries that time.
        Instant fireTime = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        fires.add(fireTime);
        for (Worker worker : alive) {
            firing.computeIfAbsent(worker, key -> new CopyOnWriteArrayList<>())
                    .add(CompletableFuture.runAsync(
                            () -> worker.coordinator().fire(ExecutionSource.NORMAL, fireTime), pool));
        }
    }
}
