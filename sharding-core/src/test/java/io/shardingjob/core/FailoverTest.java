package io.shardingjob.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerParts;
import io.shardingjob.core.internal.registry.JobNodes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Failover with real sessions ending on a real server: nothing missed, nothing run twice at once. */
class FailoverTest extends FailoverTestSupport {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    private static JobConfiguration job(int total) {
        return JobConfiguration.builder("settlement")
                .cron("* * * * * *")
                .shardingTotalCount(total)
                .failover(true)
                .build();
    }

    @Test
    void failsOverEveryUnfinishedItemOfACrashedInstanceOnceInTheSeedScenario() throws Exception {
        Worker a = startWorker("a", job(9), item -> 1000);
        Worker b = startWorker("b", job(9), item -> 1000);
        Worker c = startWorker("c", job(9), item -> 1000);
        awaitSettled(a, b, c);
        Instant fire = now();

        fireAll(fire, a, b, c);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("c", 6) && recorder.hasStarted("c", 8));
        Instant killed = kill(c);

        await().atMost(WITHIN).untilAsserted(() -> {
            for (int item = 0; item < 9; item++) {
                assertThat(recorder.completedRuns(item)).as("item %d", item).hasSize(1);
            }
        });
        for (int item = 6; item <= 8; item++) {
            Run run = recorder.completedRuns(item).get(0);
            assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER);
            assertThat(run.instance()).isIn("a", "b");
            assertThat(run.fireTime()).isEqualTo(fire);
            System.out.printf(
                    "seed scenario: item %d failed over to %s %d ms after the kill (session timeout %d ms)%n",
                    item, run.instance(), Duration.between(killed, run.start()).toMillis(), SESSION_TIMEOUT.toMillis());
        }
        for (int item = 0; item < 6; item++) {
            assertThat(recorder.completedRuns(item).get(0).source()).isEqualTo(ExecutionSource.NORMAL);
        }
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void spreadsManyOrphansOverManyIdleInstancesAndRunsEachOnce() throws Exception {
        List<String> ids = List.of("a", "b", "c", "d", "e", "f", "g", "h");
        List<Worker> workers = new java.util.ArrayList<>();
        for (String id : ids) {
            boolean victim = id.equals("g") || id.equals("h");
            workers.add(startWorker(id, job(40), item -> victim ? 10_000 : 50));
        }
        awaitSettled(workers.toArray(new Worker[0]));
        Instant fire = now();

        fireAll(fire, workers.toArray(new Worker[0]));
        // Every victim item running, not only the first and the last: one still waiting for its start when its instance
        // dies never began, and is rightly run by its next owner as the fire's own (NORMAL), not failed over.
        await().atMost(WITHIN)
                .until(() ->
                        IntStream.range(30, 40).allMatch(item -> recorder.hasStarted(item < 35 ? "g" : "h", item)));
        kill(workers.get(6));
        kill(workers.get(7));

        await().atMost(WITHIN).untilAsserted(() -> {
            for (int item = 0; item < 40; item++) {
                assertThat(recorder.completedRuns(item)).as("item %d", item).hasSize(1);
            }
        });
        Set<String> claimers = IntStream.range(30, 40)
                .mapToObj(item -> recorder.completedRuns(item).get(0))
                .peek(run -> assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER))
                .map(Run::instance)
                .collect(Collectors.toSet());
        System.out.println("10 orphans claimed by " + claimers);
        assertThat(claimers).hasSizeGreaterThan(1).doesNotContain("g", "h");
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void aGracefulCloseLetsItemsFinishAndWritesNoFailoverRecord() throws Exception {
        Worker a = startWorker("a", job(9), item -> 100);
        Worker b = startWorker("b", job(9), item -> 100);
        Worker c = startWorker("c", job(9), item -> 800);
        awaitSettled(a, b, c);

        fireAll(now(), a, b, c);
        // Every item must have started before c leaves: the reshard its leaving causes would otherwise hand an item
        // of a slow instance that has not started yet to failover, rightly, and this test is about a clean leave.
        await().atMost(WITHIN)
                .until(() -> IntStream.range(0, 9)
                        .allMatch(item -> recorder.hasStarted(item < 3 ? "a" : item < 6 ? "b" : "c", item)));
        c.coordinator().close();

        assertThat(recorder.completedRuns(6))
                .singleElement()
                .satisfies(run -> assertThat(run.instance()).isEqualTo("c"));
        await().atMost(Duration.ofMillis(SESSION_TIMEOUT.toMillis() - 300))
                .untilAsserted(() -> assertThat(a.coordinator().assignment().itemsByInstance())
                        .containsOnlyKeys("a", "b"));
        assertThat(a.coordinator().ledger().failoverQueue()).isEmpty();
        assertThat(a.coordinator().ledger().failoverOwners()).isEmpty();
        assertThat(recorder.runs()).noneMatch(run -> run.source() == ExecutionSource.FAILOVER);
        assertThat(recorder.completed()).hasSize(9);
    }

    @Test
    void itemsStillRunningWhenTheGracePeriodEndsAreHandedToFailover() throws Exception {
        Worker a = startWorker("a", job(6), item -> 50);
        Worker b = startWorker("b", job(6), item -> 50);
        Worker c = startWorker("c", job(6), item -> item >= 4 ? 5_000 : 50, Duration.ofMillis(200));
        awaitSettled(a, b, c);

        fireAll(now(), a, b, c);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("c", 4) && recorder.hasStarted("c", 5));
        c.coordinator().close();

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(recorder.completedRuns(4)).singleElement().satisfies(run -> {
                assertThat(run.instance()).isIn("a", "b");
                assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER);
            });
            assertThat(recorder.completedRuns(5)).hasSize(1);
        });
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void aPartitionedOwnerStopsItsItemBeforeAnotherInstanceTakesItOver() throws Exception {
        Worker a = startWorker("a", job(4), item -> item < 2 ? 100 : 4_000);
        Worker b = startWorker("b", job(4), item -> item < 2 ? 100 : 4_000);
        awaitSettled(a, b);

        fireAll(now(), a, b);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("b", 2) && recorder.hasStarted("b", 3));
        b.proxy().cut();

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(recorder.completedRuns(2))
                    .singleElement()
                    .satisfies(run -> assertThat(run.instance()).isEqualTo("a"));
            assertThat(recorder.completedRuns(3))
                    .singleElement()
                    .satisfies(run -> assertThat(run.instance()).isEqualTo("a"));
        });
        b.proxy().restore();

        await().atMost(WITHIN)
                .until(() -> b.coordinator().isAvailable()
                        && b.coordinator().localItems().size() == 2);
        assertThat(recorder.runs())
                .filteredOn(run -> run.instance().equals("b") && run.item() >= 2)
                .allSatisfy(run -> assertThat(run.completed()).isFalse());
        assertThat(recorder.overlaps()).isEmpty();
    }

    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void itemsQueuedInABusyPoolNeverStartOnAnInstanceCutOffFromZooKeeperAndRunOnceElsewhere(boolean failover)
            throws Exception {
        JobConfiguration config = job(6).toBuilder().failover(failover).build();
        Worker a = startWorker("a", config, item -> 200);
        // One item thread for three items: two of them wait in its queue while the first runs.
        Worker b = startWorker("b", config, item -> 1_000, Duration.ofSeconds(10), 1);
        awaitSettled(a, b);
        List<Integer> ofB = b.coordinator().assignment().itemsOf("b");
        Instant fire = now();
        fireAll(fire, a, b);
        await().atMost(WITHIN).until(() -> ofB.stream().anyMatch(item -> recorder.hasStarted("b", item)));
        // Cut off without a word: every byte held, no connection closed, as a partition does.
        b.proxy().freeze();
        List<Integer> startedBeforeTheCut =
                ofB.stream().filter(item -> recorder.hasStarted("b", item)).toList();
        List<Integer> queued =
                ofB.stream().filter(item -> !startedBeforeTheCut.contains(item)).toList();

        // Nothing of the queued items ran: their next owner runs them as the fire's own runs, failover on or off.
        await().atMost(WITHIN)
                .untilAsserted(() -> queued.forEach(item -> assertThat(recorder.completedRuns(item))
                        .filteredOn(run -> run.fireTime().equals(fire))
                        .singleElement()
                        .satisfies(run -> {
                            assertThat(run.instance()).isEqualTo("a");
                            assertThat(run.source()).isEqualTo(ExecutionSource.NORMAL);
                        })));
        b.proxy().thaw();
        await().atMost(WITHIN).until(() -> b.coordinator().isAvailable());

        assertThat(ofB.stream().filter(item -> recorder.hasStarted("b", item)))
                .as("items started on the cut-off instance")
                .containsExactlyElementsOf(startedBeforeTheCut);
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void aRunningItemIsInterruptedWhenOnlyPingsAreAnsweredForAThirdOfTheSessionTimeout() throws Exception {
        Worker a = startWorker("a", job(4), item -> 200);
        Worker b = startWorker("b", job(4), item -> 10_000);
        awaitSettled(a, b);
        List<Integer> ofB = b.coordinator().assignment().itemsOf("b");
        Instant fire = now();
        fireAll(fire, a, b);
        await().atMost(WITHIN).until(() -> ofB.stream().allMatch(item -> recorder.hasStarted("b", item)));

        // As a follower cut off from its leader: b's pings are answered, nothing else is. Curator sees no trouble, and
        // only a request that goes through the leader could tell; the server here keeps the session, a leader would
        // expire it a session timeout after the last request that proved it.
        b.proxy().passPingsOnly();
        Instant cut = Instant.now();

        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(recorder.runs())
                        .filteredOn(run -> run.instance().equals("b") && ofB.contains(run.item()))
                        .hasSize(ofB.size())
                        .allSatisfy(run -> assertThat(run.completed()).isFalse()));
        // Interrupted well before the leader could have expired the session, without any connection state change.
        assertThat(recorder.runs())
                .filteredOn(run -> run.instance().equals("b"))
                .allSatisfy(run -> assertThat(run.end()).isBefore(cut.plus(SESSION_TIMEOUT)));
        assertThat(b.coordinator().isAvailable()).isTrue();
        b.proxy().passAll();

        // Released, they run again, once each, on their owner.
        await().atMost(WITHIN)
                .untilAsserted(() -> ofB.forEach(item -> assertThat(recorder.completedRuns(item))
                        .filteredOn(run -> run.fireTime().equals(fire))
                        .hasSize(1)));
        assertThat(recorder.overlaps()).isEmpty();
    }

    /**
     * The zookeeper-restart drill's miss: a trigger claimed every item of the instance (a fire its audit passes over as
     * whole), and the answer to a start write was lost with the connection. The session lives on, so nobody else takes
     * the claim over: the instance's own audit must find it.
     */
    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void aQueuedItemWhoseStartWasNeverAnsweredRunsOnceTheConnectionIsBackInAFireItsTriggerClaimedWhole(boolean failover)
            throws Exception {
        JobConfiguration config = job(2).toBuilder().failover(failover).build();
        // One item thread for both items: item 1 waits in the queue, and its start is written once item 0 returned.
        Worker b = startWorker("b", config, item -> 150, Duration.ofSeconds(10), 1);
        awaitSettled(b);
        Instant fire = now();
        fireAll(fire, b);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("b", 0) || recorder.hasStarted("b", 1));
        int queued = recorder.hasStarted("b", 0) ? 1 : 0;
        // As a follower cut off from its leader: nothing but pings gets through, and the start of the queued item is
        // sent and waits.
        b.proxy().passPingsOnly();
        String queuedClaim = new JobNodes("settlement").ledgerFire(fire) + "/" + queued;
        await().atMost(WITHIN).until(() -> b.proxy().holdsPacketNaming(queuedClaim));
        // The connection drops: the start is answered by a loss, unwritten. The session lives on.
        b.proxy().cut();
        b.proxy().passAll();
        b.proxy().restore();

        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(recorder.completedRuns(queued))
                        .filteredOn(run -> run.fireTime().equals(fire))
                        .singleElement()
                        .satisfies(run -> assertThat(run.instance()).isEqualTo("b")));
        assertThat(recorder.overlaps()).isEmpty();
    }

    /**
     * An item that hangs past the ledger's retention no longer holds the watermark back: the keeper passes its fire and
     * lists it still open. Audits still read it: once its instance dies, the item's next owner takes the run over
     * (failover on) or records it failed (failover off), as it would any fire after the watermark.
     */
    @ParameterizedTest(name = "failover {0}")
    @ValueSource(booleans = {true, false})
    void anItemThatHangsPastTheRetentionIsStillTakenOverWhenItsInstanceDies(boolean failover) throws Exception {
        JobConfiguration config = job(2).toBuilder().failover(failover).build();
        UnaryOperator<JobCoordinatorBuilder> shortRetention = builder -> builder.ledgerRetention(Duration.ofSeconds(1));
        Worker a = startWorker("a", config, item -> 50, Duration.ofSeconds(10), 8, shortRetention);
        Worker b = startWorker("b", config, item -> 60_000, Duration.ofSeconds(10), 8, shortRetention);
        awaitSettled(a, b);
        int hung = b.coordinator().assignment().itemsOf("b").get(0);
        Instant fire = now();
        fireAll(fire, a, b);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("b", hung));

        LedgerParts ledger = LedgerParts.of(a.client(), new JobNodes("settlement"));
        await().atMost(WITHIN).until(() -> ledger.reads().overview().stillOpen().contains(fire));
        assertThat(ledger.reads().overview().watermark()).isAfterOrEqualTo(fire);
        kill(b);

        if (failover) {
            await().atMost(WITHIN)
                    .untilAsserted(() -> assertThat(recorder.completedRuns(hung))
                            .filteredOn(run -> run.fireTime().equals(fire))
                            .singleElement()
                            .satisfies(run -> {
                                assertThat(run.instance()).isEqualTo("a");
                                assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER);
                            }));
        } else {
            await().atMost(WITHIN)
                    .untilAsserted(() -> assertThat(ledger.reads()
                                    .read(List.of(fire))
                                    .get(0)
                                    .claims()
                                    .get(hung)
                                    .state())
                            .isEqualTo(ClaimState.FAILED));
        }
        // Settled at last, the fire leaves the list.
        await().atMost(WITHIN).until(() -> ledger.reads().overview().stillOpen().isEmpty());
    }

    @Test
    void anItemClaimedForAFireByAnotherInstanceIsSkippedForThatFireOnly() throws Exception {
        Worker a = startWorker("a", job(4), item -> 50);
        Worker b = startWorker("b", job(4), item -> 50);
        awaitSettled(a, b);
        Instant fire = now();
        // a took item 2 of that fire over from b while b was cut off with its session intact: no reshard follows.
        LedgerParts ledger = LedgerParts.of(a.client(), new JobNodes("settlement"));
        Claim taken = ledger.claims()
                .claimAsync(
                        fire,
                        List.of(Claim.first(
                                2, fire, "a", ledger.proof().sessionId(), ExecutionSource.FAILOVER, 1, 4, fire)))
                .join()
                .won()
                .get(2);

        FireReport sameFire = b.coordinator().fire(ExecutionSource.NORMAL, fire);
        // Whether b's audit saw a's run first or its fire found the claim, item 2 is not b's for that fire.
        assertThat(sameFire.items()).containsExactly(3);
        assertThat(sameFire.skipped()).containsKey(2);

        // Once a's claim has ended, item 2 is b's again for the next fire: on time, or made up as soon as b's audit has
        // seen the end (while a holds the claim, b starts item 2 for no fire at all). a's audit may find the claim its
        // own session holds first (a stranded claim, never started): a does not own item 2, so it hands the claim on,
        // and b, the owner, runs it once; then this write loses, as it should.
        ledger.claims()
                .commitAsync(List.of(taken.with(ClaimState.DONE, now())), Instant.EPOCH, List.of())
                .join()
                .written();
        Instant next = fire.plusSeconds(1);
        b.coordinator().fire(ExecutionSource.NORMAL, next);
        // Item 3 too, on time or, when an audit of b's still had it reserved for work it owed (see
        // LocalExecutions#endRun), made up right after that work.
        await().atMost(WITHIN)
                .untilAsserted(() -> List.of(2, 3)
                        .forEach(item -> assertThat(recorder.completedRuns(item))
                                .filteredOn(run -> run.fireTime().equals(next))
                                .singleElement()
                                .satisfies(run -> assertThat(run.instance()).isEqualTo("b"))));
        assertThat(recorder.completedRuns(2))
                .filteredOn(run -> run.fireTime().equals(fire))
                .hasSizeLessThanOrEqualTo(1);
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void whenTheLeaderDiesWhileACrashedInstancesItemsAreOrphanedTheSurvivorRunsEveryItemOnce() throws Exception {
        // a and b are busy with their own items long after c's session expires; the leader a dies before anyone has
        // reshuffled c's items, so the survivor takes over both dead instances' claims.
        Worker a = startWorker("a", job(9), item -> 8_000);
        // a leads: the first to start is not sure to be the first in the election, so the others join once it leads.
        await().atMost(WITHIN).until(() -> a.coordinator().isLeader());
        Worker b = startWorker("b", job(9), item -> item >= 3 && item <= 5 ? 8_000 : 500);
        Worker c = startWorker("c", job(9), item -> 8_000);
        awaitSettled(a, b, c);
        assertThat(a.coordinator().isLeader()).isTrue();
        await().atMost(WITHIN).until(() -> b.coordinator().localItems().equals(List.of(3, 4, 5)));

        fireAll(now(), a, b, c);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("c", 8) && recorder.hasStarted("a", 2));
        kill(c);
        kill(a);

        await().atMost(WITHIN).untilAsserted(() -> {
            for (int item = 0; item < 9; item++) {
                assertThat(recorder.completedRuns(item)).as("item %d", item).hasSize(1);
                assertThat(recorder.completedRuns(item).get(0).instance()).isEqualTo("b");
            }
        });
        assertThat(b.coordinator().isLeader()).isTrue();
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void aLeaderCrashDuringAReshardLosesNoItemOfTheRunningFire() throws Exception {
        GateStrategy gate = new GateStrategy("d");
        strategies = strategies.with(gate);
        JobConfiguration gated = job(9).toBuilder().strategy("gate").build();
        // a's items run until a dies: however long d takes to start and the reshard to reach the gate, a dies running.
        Worker a = startWorker("a", gated, item -> 60_000);
        // a leads: the first to start is not sure to be the first in the election, so the others join once it leads.
        await().atMost(WITHIN).until(() -> a.coordinator().isLeader());
        Worker b = startWorker("b", gated, item -> 1_500);
        Worker c = startWorker("c", gated, item -> 1_500);
        awaitSettled(a, b, c);
        assertThat(a.coordinator().isLeader()).isTrue();
        Instant fire = now();
        fireAll(fire, a, b, c);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("a", 0) && recorder.hasStarted("c", 8));

        gate.close();
        Worker d = startWorker("d", gated, item -> 1_500);
        await().atMost(WITHIN).until(gate::hasBlockedCaller);
        kill(a);
        gate.open();

        await().atMost(WITHIN).untilAsserted(() -> {
            for (int item = 0; item < 9; item++) {
                assertThat(recorder.completedRuns(item)).as("item %d", item).hasSize(1);
            }
        });
        assertThat(IntStream.range(0, 3)
                        .mapToObj(item -> recorder.completedRuns(item).get(0)))
                .allSatisfy(run -> {
                    assertThat(run.source()).isEqualTo(ExecutionSource.FAILOVER);
                    assertThat(run.fireTime()).isEqualTo(fire);
                });
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(d.coordinator().assignment().itemsByInstance())
                        .containsOnlyKeys("b", "c", "d"));
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void underTheAllPolicyMakesUpEveryFireADeadInstanceMissedEachWithItsOwnFireTime() throws Exception {
        JobConfiguration all =
                job(4).toBuilder().misfirePolicy(MisfirePolicy.ALL).build();
        Worker a = startWorker("a", all, item -> 50);
        Worker b = startWorker("b", all, item -> 50);
        awaitSettled(a, b);
        Instant first = now();
        fireAll(first, a, b).forEach(CompletableFuture::join);

        kill(b);
        List<Instant> missed = List.of(first.plusMillis(100), first.plusMillis(200), first.plusMillis(300));
        missed.forEach(fireTime -> a.coordinator().fire(ExecutionSource.NORMAL, fireTime));

        await().atMost(WITHIN).untilAsserted(() -> {
            assertThat(recorder.completedRuns(2)).hasSize(4);
            assertThat(recorder.completedRuns(3)).hasSize(4);
        });
        for (int item = 2; item <= 3; item++) {
            List<Run> makeUps = recorder.completedRuns(item).subList(1, 4);
            assertThat(makeUps).extracting(Run::instance).containsOnly("a");
            assertThat(makeUps).extracting(Run::source).containsOnly(ExecutionSource.MISFIRE);
            // One run per missed fire, not one run folded for all of them; one after another, usually oldest first (a
            // make-up whose start a reshard landing at that moment refused is handed on and runs after the others).
            assertThat(makeUps).extracting(Run::fireTime).containsExactlyInAnyOrderElementsOf(missed);
        }
        assertThat(recorder.overlaps()).isEmpty();
    }

    @Test
    void aFireArrivingWhileItemsStillRunMakesThemRunOnceMoreWithTheDefaults() throws Exception {
        JobConfiguration defaults = JobConfiguration.builder("settlement")
                .cron("* * * * * *")
                .shardingTotalCount(2)
                .build();
        Worker a = startWorker("a", defaults, item -> 700);
        awaitSettled(a);

        Instant firstFire = now();
        CompletableFuture<FireReport> first =
                CompletableFuture.supplyAsync(() -> a.coordinator().fire(ExecutionSource.NORMAL, firstFire));
        await().atMost(WITHIN).until(() -> recorder.hasStarted("a", 0) && recorder.hasStarted("a", 1));
        FireReport second = a.coordinator().fire(ExecutionSource.NORMAL, firstFire.plusMillis(100));
        Instant thirdFire = firstFire.plusMillis(200);
        FireReport third = a.coordinator().fire(ExecutionSource.NORMAL, thirdFire);
        first.join();

        assertThat(second.items()).isEmpty();
        assertThat(second.skipped()).containsKeys(0, 1);
        assertThat(third.skipped().get(0)).contains("misfired");
        // The two fires the items missed coalesce into one late run, with the later fire's time.
        await().atMost(WITHIN).untilAsserted(() -> {
            for (int item = 0; item < 2; item++) {
                assertThat(recorder.completedRuns(item))
                        .extracting(Run::source, Run::fireTime)
                        .containsExactly(
                                tuple(ExecutionSource.NORMAL, firstFire), tuple(ExecutionSource.MISFIRE, thirdFire));
            }
        });
    }

    @Test
    void withFailoverOffACrashedInstancesUnfinishedItemsAreRecordedFailedAndLaterFiresRunEveryItem() throws Exception {
        JobConfiguration off = job(6).toBuilder().failover(false).build();
        Worker a = startWorker("a", off, item -> 100);
        Worker b = startWorker("b", off, item -> 100);
        Worker c = startWorker("c", off, item -> item >= 4 ? 10_000 : 100);
        awaitSettled(a, b, c);
        Instant first = now();
        fireAll(first, a, b, c);
        await().atMost(WITHIN).until(() -> recorder.hasStarted("c", 4) && recorder.hasStarted("c", 5));
        kill(c);

        await().atMost(WITHIN)
                .until(() -> a.coordinator().ledger().openClaims().isEmpty()
                        && a.coordinator().assignment().itemsByInstance().size() == 2);
        List<Integer> ran = fireAll(now(), a, b).stream()
                .map(CompletableFuture::join)
                .flatMap(report -> report.items().stream())
                .sorted()
                .toList();

        assertThat(ran).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(recorder.completedRuns(4)).extracting(Run::fireTime).doesNotContain(first);
        assertThat(recorder.completedRuns(5)).extracting(Run::fireTime).doesNotContain(first);
    }
}
