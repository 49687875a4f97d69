package io.shardingjob.core.internal.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** What a fire may start here, from what the last audit saw and what the ledger says now. */
class LocalExecutionsTest {

    private final LocalExecutions local = new LocalExecutions();

    private final Claim runOfAnotherSession =
            Claim.first(2, Instant.now(), "a", 7, ExecutionSource.NORMAL, 2, 4, Instant.now());

    @Test
    void anAbandonedReservationWhoseRunHadNotStartedIsReleasedAtOnceAndNeverStarts() {
        LocalExecutions.Execution queued = local.reserve(1);
        LocalExecutions.Execution running = local.reserve(2);
        assertThat(local.start(2, running)).isTrue();

        local.abandonAll();

        assertThat(local.runningItems())
                .as("only the run that started is waited for")
                .containsExactly(2);
        assertThat(local.start(1, queued))
                .as("its task, run late by the executor")
                .isFalse();
        assertThat(Thread.interrupted())
                .as("the started run was interrupted (it ran on this thread)")
                .isTrue();
        local.finish(2, running);
        assertThat(local.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anItemAFireFoundBusyStaysReservedForTheAuditWhenItsRunEndsSoThatNoNewerFireTakesItFirst() {
        LocalExecutions.Execution run = local.reserve(1);
        assertThat(local.reserve(1)).as("the next fire finds it busy").isNull();
        local.missedWhileBusy(1);

        assertThat(local.endRun(1, run)).as("an audit is owed").isTrue();

        assertThat(local.reserve(1)).as("a newer fire, before the audit").isNull();
        Map<Integer, LocalExecutions.Execution> held = local.heldForAudit();
        assertThat(held).containsOnlyKeys(1);
        LocalExecutions.Execution audit = local.reserveForAudit(1);
        assertThat(audit).as("the audit's work runs under the held reservation").isSameAs(held.get(1));
        assertThat(local.start(1, audit)).isTrue();
        assertThat(local.endRun(1, audit)).as("nothing found it busy meanwhile").isFalse();
        assertThat(local.reserve(1)).as("free again").isNotNull();
    }

    /** A run of the item that a fire found busy, ended: the item is then held for the audit. */
    private void heldAfterAFireFoundItBusy(int item) {
        LocalExecutions.Execution run = local.reserve(item);
        local.missedWhileBusy(item);
        assertThat(local.endRun(item, run)).isTrue();
    }

    @Test
    void anItemHeldForAnAuditThatFoundNoWorkForItIsFreed() {
        heldAfterAFireFoundItBusy(1);
        Map<Integer, LocalExecutions.Execution> seen = local.heldForAudit();

        local.releaseHeld(seen);

        assertThat(local.heldForAudit()).isEmpty();
        assertThat(local.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anAuditFreesOnlyTheHoldsItSawNotOnesMadeSince() {
        heldAfterAFireFoundItBusy(1);
        Map<Integer, LocalExecutions.Execution> seen = local.heldForAudit();
        // An earlier audit's work took the hold, ran, and found the item busy again.
        LocalExecutions.Execution work = local.reserveForAudit(1);
        local.missedWhileBusy(1);
        local.endRun(1, work);

        local.releaseHeld(seen);

        assertThat(local.heldForAudit())
                .as("the newer hold waits for its own audit")
                .containsOnlyKeys(1);
        assertThat(local.reserve(1)).isNull();
    }

    @Test
    void anAbandonedRunIsFreedAndNotHeldWhenItEnds() {
        LocalExecutions.Execution run = local.reserve(1);
        assertThat(local.start(1, run)).isTrue();
        local.missedWhileBusy(1);
        local.abandonAll();
        Thread.interrupted();

        assertThat(local.endRun(1, run)).isTrue();

        assertThat(local.heldForAudit()).isEmpty();
        assertThat(local.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void holdsForTheAuditAreDroppedWhenTheConnectionIsLost() {
        heldAfterAFireFoundItBusy(1);

        local.abandonAll();

        assertThat(local.heldForAudit()).isEmpty();
        assertThat(local.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anItemAnotherSessionStillRunsIsNotStartedHere() {
        local.audited(3, Set.of(2, 3), Map.of(2, runOfAnotherSession));

        assertThat(local.mayStart(2, 3, other -> true)).isFalse();
        assertThat(local.mayStart(3, 3, other -> true)).isTrue();
    }

    @Test
    void aRunTheAuditSawElsewhereThatHasEndedSinceNoLongerHoldsTheItemBack() {
        local.audited(3, Set.of(2, 3), Map.of(2, runOfAnotherSession));

        assertThat(local.mayStart(2, 3, other -> false)).isTrue();
        // Forgotten once seen ended: no further read of the ledger for it.
        assertThat(local.mayStart(2, 3, other -> true)).isTrue();
    }

    @Test
    void anItemThatMovedHereIsNotStartedBeforeAnAuditOfItsAssignmentHasLooked() {
        local.audited(3, Set.of(3), Map.of());

        assertThat(local.mayStart(2, 4, other -> false)).isFalse();
        assertThat(local.mayStart(3, 4, other -> false)).isTrue();
    }

    @Test
    void aFireWaitingForTheAuditOfAnAssignmentGoesOnOnceThatOrALaterOneIsAudited() {
        local.audited(3, Set.of(3), Map.of());
        assertThat(local.whenAudited(3, Duration.ofMinutes(1))).isDone();

        CompletableFuture<Void> ofFour = local.whenAudited(4, Duration.ofMinutes(1));
        CompletableFuture<Void> ofSix = local.whenAudited(6, Duration.ofMinutes(1));
        assertThat(ofFour).isNotDone();

        local.audited(5, Set.of(3), Map.of());
        assertThat(ofFour).isDone();
        assertThat(ofSix).isNotDone();
    }

    @Test
    void aFireWaitsForAnAuditAtMostTheTimeout() {
        CompletableFuture<Void> audited = local.whenAudited(4, Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(10)).until(audited::isDone);
        assertThat(local.auditedEpoch()).isEqualTo(-1);
    }

    @Test
    void claimsAheadInARequestNotAnsweredYetCountAsInFlightSoThatNoAuditTakesThemForStranded() {
        Instant next = Instant.now().plusSeconds(1);
        Claim ahead = Claim.first(5, next, "me", 9, ExecutionSource.NORMAL, 3, 8, next);
        LedgerRules.Slot slot = new LedgerRules.Slot(5, next);

        local.requestingAhead(List.of(ahead));
        assertThat(local.inFlight()).contains(slot);

        // Answered and kept: in flight as a claim made ahead until its trigger takes it.
        local.claimedAhead(next, List.of(ahead));
        local.answeredAhead(List.of(ahead));
        assertThat(local.inFlight()).contains(slot);
    }

    @Test
    void claimsAheadWhoseRequestFailedAreNoLongerInFlight() {
        Instant next = Instant.now().plusSeconds(1);
        Claim ahead = Claim.first(5, next, "me", 9, ExecutionSource.NORMAL, 3, 8, next);

        local.requestingAhead(List.of(ahead));
        local.answeredAhead(List.of(ahead));

        assertThat(local.inFlight()).isEmpty();
    }
}
