package io.shardingjob.core.internal.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.core.ZooKeeperTestSupport;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.registry.JobStructure;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim created with its start written (with failover on: a fire's first claims, the claims made ahead) may begin
 * with no other write, so its create checks the assignment it was decided under, in the same request: under an
 * outdated one, or with no version to check, it is created reserved, and its run writes its start under the check.
 */
class GuardedCreatesTest extends ZooKeeperTestSupport {

    private static final JobNodes NODES = new JobNodes("settlement");

    private final Instant fire = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private final ScheduledExecutorService drainer = Executors.newSingleThreadScheduledExecutor();

    private CuratorFramework client;

    private LedgerParts ledger;

    private long session;

    @BeforeEach
    void createTheJobsNodesAndItsFirstAssignment() throws Exception {
        client = newClient();
        JobStructure.ensure(client, List.of(NODES), List::of);
        client.create().creatingParentsIfNeeded().forPath(NODES.assignment(), "epoch=1".getBytes());
        ledger = LedgerParts.of(client, NODES);
        session = ledger.proof().sessionId();
    }

    @AfterEach
    void stopTheDrainer() {
        drainer.shutdownNow();
    }

    @Test
    void aFiresClaimCreatedWithItsStartIsCreatedSoOnlyUnderTheAssignmentItWasDecidedUnder() throws Exception {
        // A reshard writes a new assignment: version 1.
        client.setData().forPath(NODES.assignment(), "epoch=2".getBytes());

        Claim outdated = claimedUnder(0, started(0, fire)).won().get(0);
        Claim unknown = ledger.claims()
                .claimAsync(fire, List.of(started(1, fire)))
                .join()
                .won()
                .get(1);
        Claim current = claimedUnder(1, started(2, fire)).won().get(2);

        assertThat(List.of(outdated, unknown, current))
                .extracting(Claim::state)
                .containsExactly(ClaimState.RESERVED, ClaimState.RESERVED, ClaimState.RUNNING);
        assertThat(ledger.reads().read(List.of(fire)).get(0).claims().values())
                .extracting(Claim::state)
                .containsExactly(ClaimState.RESERVED, ClaimState.RESERVED, ClaimState.RUNNING);
        // The reserved ones start as any run does, with a start write that carries the check.
        assertThat(ledger.claims()
                        .commitAsync(
                                List.of(outdated.startedAt(fire)),
                                Instant.EPOCH,
                                List.of(),
                                FireNodes.AS_NEEDED,
                                new AssignmentGuard(1, java.util.Set.of(new LedgerRules.Slot(0, fire))))
                        .join()
                        .written()
                        .written())
                .extracting(Claim::state)
                .containsExactly(ClaimState.RUNNING);
    }

    @Test
    void claimsMadeAheadRideOnTheEndsWithTheirStartsOnlyUnderTheAssignmentTheyWereDecidedUnder() throws Exception {
        Claim running = ledger.claims()
                .commitAsync(
                        List.of(ledger.claims()
                                .claimAsync(
                                        fire,
                                        List.of(Claim.first(0, fire, "a", session, ExecutionSource.NORMAL, 1, 1, fire)))
                                .join()
                                .won()
                                .get(0)
                                .startedAt(fire)),
                        Instant.EPOCH,
                        List.of())
                .join()
                .written()
                .written()
                .get(0);
        RecordingAhead ahead = new RecordingAhead();
        GroupCommit commit = new GroupCommit(ledger.claims(), drainer, ahead);
        client.setData().forPath(NODES.assignment(), "epoch=2".getBytes());

        // Decided under version 0, while the node is at 1: the end is written, the next fire's claim made reserved.
        Instant next = fire.plusSeconds(1);
        ahead.next = new GroupCommit.Ahead.Next(List.of(started(0, next)), FireNodes.AS_NEEDED, 0);
        Claim ended = commit.queue(GroupCommit.Write.end(running.with(ClaimState.DONE, fire), true))
                .join()
                .orElseThrow();

        assertThat(ended.state()).isEqualTo(ClaimState.DONE);
        assertThat(ahead.won.get(next).state()).isEqualTo(ClaimState.RESERVED);
        assertThat(ledger.reads().read(List.of(next)).get(0).claims().get(0).state())
                .isEqualTo(ClaimState.RESERVED);

        // Decided under the version in force, it is made with its start; a start queued with it that was decided under
        // the assignment before is refused.
        Claim reserved = ledger.claims()
                .commitAsync(List.of(ahead.won.get(next).startedAt(next)), Instant.EPOCH, List.of())
                .join()
                .written()
                .written()
                .get(0);
        Instant after = next.plusSeconds(1);
        ahead.next = new GroupCommit.Ahead.Next(List.of(started(0, after)), FireNodes.AS_NEEDED, 1);
        Claim other = ledger.claims()
                .claimAsync(next, List.of(Claim.first(1, next, "a", session, ExecutionSource.NORMAL, 1, 2, next)))
                .join()
                .won()
                .get(1);
        var outdatedStart = commit.queue(GroupCommit.Write.start(other.startedAt(next), false, 0));
        assertThat(commit.queue(GroupCommit.Write.end(reserved.with(ClaimState.DONE, next), true))
                        .join())
                .isPresent();

        assertThat(ahead.won.get(after).state()).isEqualTo(ClaimState.RUNNING);
        assertThat(ledger.reads().read(List.of(after)).get(0).claims().get(0).state())
                .isEqualTo(ClaimState.RUNNING);
        assertThatThrownBy(outdatedStart::join)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(AssignmentGuard.Moved.class);
    }

    /** A new claim of the item in the fire, created with its start written. */
    private Claim started(int item, Instant fireTime) {
        return Claim.first(item, fireTime, "a", session, ExecutionSource.NORMAL, 1, 3, fireTime)
                .startedAt(fireTime);
    }

    /** Claims made ahead as the test says, and what came of them. */
    private static final class RecordingAhead implements GroupCommit.Ahead {

        volatile Next next = Next.NONE;

        final Map<Instant, Claim> won = new ConcurrentHashMap<>();

        @Override
        public Next claimsAfter(List<Claim> lastEnds, List<Claim> ends) {
            return next;
        }

        @Override
        public void claimed(Instant fireTime, List<Claim> requested, ClaimWrites.@Nullable Claimed claimed) {
            if (claimed != null) {
                claimed.won().values().forEach(claim -> won.put(fireTime, claim));
            }
        }
    }

    /** Claims as a fire does: created with its start only under the assignment at {@code version}. */
    private ClaimWrites.Claimed claimedUnder(int version, Claim claim) {
        return ledger.claims()
                .commitAsync(List.of(), fire, List.of(claim), FireNodes.AS_NEEDED, AssignmentGuard.ofCreates(version))
                .join()
                .claimed();
    }
}
