package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.LedgerRules.FireView;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The ledger's writes and reads against a real ZooKeeper server: ZooKeeper decides every race. */
class ClaimWritesTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("settlement");

    private final Instant fire = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @BeforeEach
    void createTheJobsNodes() throws Exception {
        JobStructure.ensure(newClient(), List.of(NODES), List::of);
    }

    @Test
    void claimsTooManyForOneRequestAreWrittenInSeveralAndFiresTooManyToDeleteInOneAreRetiredInSeveral()
            throws Exception {
        LedgerParts ledger = LedgerParts.of(newClient(), NODES);
        long session = sessionOf(ledger);
        // About 230 bytes a claim: 3,000 of a fire are more than one request of the ledger takes.
        int items = 3_000;
        Map<Instant, List<Integer>> fires = new java.util.TreeMap<>();
        for (int fire = 0; fire < 3; fire++) {
            Instant fireTime = this.fire.plusSeconds(fire);
            List<Claim> claims = IntStream.range(0, items)
                    .mapToObj(item ->
                            Claim.first(item, fireTime, "a", session, ExecutionSource.NORMAL, 1, items, fireTime))
                    .toList();

            assertThat(ledger.claims().claimAsync(fireTime, claims).join().won())
                    .hasSize(items);
            fires.put(fireTime, IntStream.range(0, items).boxed().toList());
        }
        assertThat(ledger.reads().read(fires.keySet()))
                .allSatisfy(view -> assertThat(view.claims()).hasSize(items));

        assertThat(ledger.keeper().retireAsync(fires, -1).join()).isEqualTo(3);
        assertThat(newClient().getChildren().forPath(NODES.ledger())).isEmpty();
    }

    @Test
    void eachItemOfAFireIsWonByExactlyOneOfFourInstancesClaimingAllOfThemAtOnce() throws Exception {
        int items = 20;
        List<LedgerParts> ledgers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ledgers.add(LedgerParts.of(newClient(), NODES));
        }
        CyclicBarrier together = new CyclicBarrier(ledgers.size());
        List<CompletableFuture<ClaimWrites.Claimed>> attempts = new ArrayList<>();
        for (int i = 0; i < ledgers.size(); i++) {
            LedgerParts ledger = ledgers.get(i);
            String instance = "w" + i;
            attempts.add(CompletableFuture.supplyAsync(() -> {
                try {
                    List<Claim> claims = IntStream.range(0, items)
                            .mapToObj(item -> Claim.first(
                                    item, fire, instance, sessionOf(ledger), ExecutionSource.NORMAL, 1, items, fire))
                            .toList();
                    together.await();
                    return ledger.claims().claimAsync(fire, claims).join();
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }));
        }

        Set<Integer> won = new HashSet<>();
        int wins = 0;
        for (CompletableFuture<ClaimWrites.Claimed> attempt : attempts) {
            ClaimWrites.Claimed claimed = attempt.join();
            wins += claimed.won().size();
            won.addAll(claimed.won().keySet());
            assertThat(claimed.won().size() + claimed.lost().size()).isEqualTo(items);
        }
        assertThat(wins).isEqualTo(items);
        assertThat(won).hasSize(items);
        Map<Integer, Claim> stored =
                ledgers.get(0).reads().read(List.of(fire)).get(0).claims();
        assertThat(stored).hasSize(items);
        for (CompletableFuture<ClaimWrites.Claimed> attempt : attempts) {
            attempt.join()
                    .won()
                    .forEach((item, claim) ->
                            assertThat(stored.get(item).sessionId()).isEqualTo(claim.sessionId()));
            attempt.join()
                    .lost()
                    .forEach((item, claim) ->
                            assertThat(stored.get(item).sessionId()).isEqualTo(claim.sessionId()));
        }
    }

    @Test
    void anOwnerWhoseClaimWasTakenOverCannotWriteItAndTheNewOwnerHoldsAGreaterFencingToken() throws Exception {
        LedgerParts zombie = LedgerParts.of(newClient(), NODES);
        LedgerParts survivor = LedgerParts.of(newClient(), NODES);
        Claim original = zombie.claims()
                .claimAsync(
                        fire,
                        List.of(Claim.first(
                                3, fire, "a", zombie.proof().sessionId(), ExecutionSource.NORMAL, 1, 4, fire)))
                .join()
                .won()
                .get(3);
        Claim orphan = survivor.reads().read(List.of(fire)).get(0).claims().get(3);

        Claim taken = survivor.claims()
                .takeOverAsync(
                        orphan,
                        orphan.takenOverBy("b", survivor.proof().sessionId(), ExecutionSource.FAILOVER, Instant.now()))
                .join()
                .orElseThrow();
        ClaimWrites.Written zombieWrite = zombie.claims()
                .commitAsync(List.of(original.with(ClaimState.DONE, Instant.now())), Instant.EPOCH, List.of())
                .join()
                .written();
        ClaimWrites.Written survivorWrite = survivor.claims()
                .commitAsync(List.of(taken.with(ClaimState.DONE, Instant.now())), Instant.EPOCH, List.of())
                .join()
                .written();

        assertThat(zombieWrite.lost()).hasSize(1);
        assertThat(zombieWrite.written()).isEmpty();
        assertThat(survivorWrite.written()).hasSize(1);
        assertThat(taken.fencingToken()).isGreaterThan(original.fencingToken());
        assertThat(taken.attempt()).isEqualTo(2);
        Claim stored = survivor.reads().read(List.of(fire)).get(0).claims().get(3);
        assertThat(stored.instanceId()).isEqualTo("b");
        assertThat(stored.state()).isEqualTo(ClaimState.DONE);
        assertThat(stored.fencingToken()).isEqualTo(taken.fencingToken());
    }

    @Test
    void ofTwoInstancesTakingTheSameOrphanOverExactlyOneWins() throws Exception {
        LedgerParts dead = LedgerParts.of(newClient(), NODES);
        dead.claims()
                .claimAsync(
                        fire,
                        List.of(Claim.first(
                                0, fire, "a", dead.proof().sessionId(), ExecutionSource.NORMAL, 1, 1, fire)))
                .join();
        LedgerParts b = LedgerParts.of(newClient(), NODES);
        LedgerParts c = LedgerParts.of(newClient(), NODES);
        Claim seenByB = b.reads().read(List.of(fire)).get(0).claims().get(0);
        Claim seenByC = c.reads().read(List.of(fire)).get(0).claims().get(0);

        boolean bWon = b.claims()
                .takeOverAsync(seenByB, seenByB.takenOverBy("b", b.proof().sessionId(), ExecutionSource.FAILOVER, fire))
                .join()
                .isPresent();
        boolean cWon = c.claims()
                .takeOverAsync(seenByC, seenByC.takenOverBy("c", c.proof().sessionId(), ExecutionSource.FAILOVER, fire))
                .join()
                .isPresent();

        assertThat(List.of(bWon, cWon)).containsExactlyInAnyOrder(true, false);
    }

    @Test
    void aFireOfTwelveHundredItemsIsClaimedInSeveralMultiOperationsAndReadBackWhole() throws Exception {
        LedgerParts ledger = LedgerParts.of(newClient(), NODES);
        int items = 1200;
        List<Claim> claims = IntStream.range(0, items)
                .mapToObj(
                        item -> Claim.first(item, fire, "a", sessionOf(ledger), ExecutionSource.NORMAL, 1, items, fire))
                .toList();

        ClaimWrites.Claimed claimed = ledger.claims().claimAsync(fire, claims).join();
        ClaimWrites.Written done = endAllDone(ledger, claimed.won());

        assertThat(claimed.won()).hasSize(items);
        assertThat(done.written()).hasSize(items);
        FireView view = ledger.reads().read(List.of(fire)).get(0);
        assertThat(view.claims()).hasSize(items);
        assertThat(view.isSettled()).isTrue();
    }

    @Test
    void retiresSettledFiresAndKeepsOnesWithAnOpenClaim() throws Exception {
        LedgerParts ledger = LedgerParts.of(newClient(), NODES);
        long session = ledger.proof().sessionId();
        Instant settled = fire.minusSeconds(2);
        Instant open = fire.minusSeconds(1);
        Claimed first = claimTwo(ledger, settled, session);
        endAllDone(ledger, first.won());
        claimTwo(ledger, open, session);
        List<FireView> views = ledger.reads().read(ledger.reads().fires());

        List<Instant> retire = LedgerRules.toRetire(views, fire, fire.minusSeconds(60));
        int retired = ledger.keeper()
                .retireAsync(
                        views.stream()
                                .filter(view -> retire.contains(view.fireTime()))
                                .collect(java.util.stream.Collectors.toMap(
                                        FireView::fireTime,
                                        view -> view.claims().keySet())),
                        -1)
                .join();

        assertThat(retired).isEqualTo(1);
        assertThat(ledger.reads().fires()).containsExactly(open);
        assertThat(LedgerRules.settledThrough(views, Instant.EPOCH)).isEqualTo(settled);
    }

    private record Claimed(Map<Integer, Claim> won) {}

    /** Writes every claim won {@code DONE}, at the version it holds, in one group commit. */
    private ClaimWrites.Written endAllDone(LedgerParts ledger, Map<Integer, Claim> won) {
        return ledger.claims()
                .commitAsync(
                        won.values().stream()
                                .map(claim -> claim.with(ClaimState.DONE, fire))
                                .toList(),
                        Instant.EPOCH,
                        List.of())
                .join()
                .written();
    }

    private static Claimed claimTwo(LedgerParts ledger, Instant fireTime, long session) throws Exception {
        return new Claimed(ledger.claims()
                .claimAsync(
                        fireTime,
                        List.of(
                                Claim.first(0, fireTime, "a", session, ExecutionSource.NORMAL, 1, 2, fireTime),
                                Claim.first(1, fireTime, "a", session, ExecutionSource.NORMAL, 1, 2, fireTime)))
                .join()
                .won());
    }

    private static long sessionOf(LedgerParts ledger) {
        try {
            return ledger.proof().sessionId();
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void aStartDecidedUnderAnOutdatedAssignmentIsRefusedWhileTheEndsInTheSameRequestAreWritten() throws Exception {
        var client = newClient();
        client.create().creatingParentsIfNeeded().forPath(NODES.assignment(), "epoch=1".getBytes());
        LedgerParts ledger = LedgerParts.of(client, NODES);
        long session = sessionOf(ledger);
        List<Claim> reserved = IntStream.range(0, 3)
                .mapToObj(item -> Claim.first(item, fire, "a", session, ExecutionSource.NORMAL, 1, 3, fire))
                .toList();
        Map<Integer, Claim> won =
                ledger.claims().claimAsync(fire, reserved).join().won();
        // A reshard writes a new assignment: version 1, while the starts were decided under version 0.
        client.setData().forPath(NODES.assignment(), "epoch=2".getBytes());
        Claim ended = won.get(0).startedAt(fire).with(ClaimState.DONE, fire.plusSeconds(1));
        List<Claim> starts = List.of(won.get(1).startedAt(fire), won.get(2).startedAt(fire));
        Set<LedgerRules.Slot> guarded = new HashSet<>();
        starts.forEach(start -> guarded.add(new LedgerRules.Slot(start.item(), start.fireTime())));

        List<Claim> writes = new ArrayList<>(starts);
        writes.add(0, ended);
        ClaimWrites.Written outdated = ledger.claims()
                .commitAsync(writes, Instant.EPOCH, List.of(), FireNodes.AS_NEEDED, new AssignmentGuard(0, guarded))
                .join()
                .written();

        assertThat(outdated.moved()).extracting(Claim::item).containsExactlyInAnyOrder(1, 2);
        assertThat(outdated.written()).extracting(Claim::item).containsExactly(0);
        Map<Integer, Claim> stored = ledger.reads().read(List.of(fire)).get(0).claims();
        assertThat(stored.get(0).state()).isEqualTo(ClaimState.DONE);
        assertThat(stored.get(1).state()).isEqualTo(ClaimState.RESERVED);
        assertThat(stored.get(2).state()).isEqualTo(ClaimState.RESERVED);

        // Decided again under the assignment in force, they start.
        ClaimWrites.Written current = ledger.claims()
                .commitAsync(starts, Instant.EPOCH, List.of(), FireNodes.AS_NEEDED, new AssignmentGuard(1, guarded))
                .join()
                .written();
        assertThat(current.moved()).isEmpty();
        assertThat(current.written()).extracting(Claim::state).containsOnly(ClaimState.RUNNING);
    }

    @Test
    void aReRunWrittenAfterTheKeeperReadTheLedgerFailsItsWatermarkAndItsRetirementAndKeepsTheFireListed()
            throws Exception {
        LedgerParts ledger = LedgerParts.of(newClient(), NODES);
        long session = sessionOf(ledger);
        Claim failed = ledger.claims()
                .claimAsync(fire, List.of(Claim.first(0, fire, "a", session, ExecutionSource.NORMAL, 1, 1, fire)))
                .join()
                .won()
                .get(0);
        ledger.claims()
                .commitAsync(List.of(failed.with(ClaimState.FAILED, fire)), Instant.EPOCH, List.of())
                .join()
                .written();
        LedgerOverview keeperRead = ledger.reads().overview();

        RerunRule.Verdict rerun = ledger.reruns().reopen(fire, () -> fire.plusSeconds(1));

        assertThat(rerun).isInstanceOf(RerunRule.Reopen.class);
        // The keeper's pass, decided on its read before the re-run: it passes the fire and deletes it.
        assertThat(ledger.keeper()
                        .setWatermarkAsync(fire, Set.of(), keeperRead.version())
                        .join())
                .isEqualTo(-1);
        assertThat(ledger.keeper()
                        .retireAsync(Map.of(fire, List.of(0)), keeperRead.version())
                        .join())
                .isZero();
        LedgerOverview now = ledger.reads().overview();
        assertThat(now.stillOpen()).containsExactly(fire);
        assertThat(now.toRead(fire.plusSeconds(1))).contains(fire);
        assertThat(ledger.reads().read(List.of(fire)).get(0).claims().get(0).state())
                .isEqualTo(ClaimState.HANDED_ON);
        // A second re-run finds the item open: nothing more is reopened.
        assertThat(ledger.reruns().reopen(fire, () -> fire.plusSeconds(2)))
                .isEqualTo(new RerunRule.Refused(RerunRule.Reason.RUNNING, List.of(0)));
    }
}
