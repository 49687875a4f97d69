package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An item runs at most once at a time here, and one a fire found busy is held for the audit that makes it up. */
class ReservationsTest {

    private final Reservations reservations = new Reservations();

    @Test
    void anAbandonedReservationWhoseRunHadNotStartedIsReleasedAtOnceAndNeverStarts() {
        Reservation queued = reservations.reserve(1);
        Reservation running = reservations.reserve(2);
        assertThat(reservations.start(2, running)).isTrue();

        reservations.abandonAll();

        assertThat(reservations.runningItems())
                .as("only the run that started is waited for")
                .containsExactly(2);
        assertThat(reservations.start(1, queued))
                .as("its task, run late by the executor")
                .isFalse();
        assertThat(Thread.interrupted())
                .as("the started run was interrupted (it ran on this thread)")
                .isTrue();
        reservations.finish(2, running);
        assertThat(reservations.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anItemAFireFoundBusyStaysReservedForTheAuditWhenItsRunEndsSoThatNoNewerFireTakesItFirst() {
        Reservation run = reservations.reserve(1);
        assertThat(reservations.reserve(1)).as("the next fire finds it busy").isNull();
        reservations.missedWhileBusy(1);

        assertThat(reservations.endRun(1, run)).as("an audit is owed").isNotNull();

        assertThat(reservations.reserve(1)).as("a newer fire, before the audit").isNull();
        Map<Integer, Reservation> held = reservations.heldForAudit();
        assertThat(held).containsOnlyKeys(1);
        Reservation audit = reservations.reserveForAudit(1);
        assertThat(audit).as("the audit's work runs under the held reservation").isSameAs(held.get(1));
        assertThat(reservations.start(1, audit)).isTrue();
        assertThat(reservations.endRun(1, audit))
                .as("nothing found it busy meanwhile")
                .isNull();
        assertThat(reservations.reserve(1)).as("free again").isNotNull();
    }

    @Test
    void aRunOwesNothingForItsOwnFireNorForTheFiresItFoldedInThatFoundItsItemBusy() {
        Instant own = Instant.parse("2026-01-01T00:00:05Z");
        Reservation makeUp = reservations.reserve(1);
        // The make-up of the fire at 5 s folds in 3 s and 4 s; its trigger at 5 s found the item busy with it, and an
        // audit read 3 s unclaimed before the make-up's record of it was written.
        reservations.missedByFire(1, own, 4, 9);
        reservations.missedByFire(1, own.minusSeconds(2), 4, 9);
        makeUp.settles(own);
        makeUp.settles(own.minusSeconds(2));
        makeUp.settles(own.minusSeconds(1));

        assertThat(reservations.endRun(1, makeUp)).as("nothing owed").isNull();
        assertThat(reservations.reserve(1)).as("free for its next fire").isNotNull();
    }

    @Test
    void aFireTheRunDidNotSettleIsStillOwedBesideTheOnesItDid() {
        Instant own = Instant.parse("2026-01-01T00:00:05Z");
        Reservation makeUp = reservations.reserve(1);
        reservations.missedByFire(1, own, 4, 9);
        reservations.missedByFire(1, own.plusSeconds(1), 4, 9);
        makeUp.settles(own);

        Owed owed = reservations.endRun(1, makeUp);

        assertThat(owed).isNotNull();
        assertThat(owed.fires()).containsExactly(own.plusSeconds(1));
        assertThat(reservations.reserve(1)).as("held for that make-up").isNull();
    }

    @Test
    void aDebtOnlyTheLedgerTellsOfIsOwedWhateverTheRunSettled() {
        Instant own = Instant.parse("2026-01-01T00:00:05Z");
        Reservation run = reservations.reserve(1);
        reservations.missedWhileBusy(1);
        run.settles(own);

        assertThat(reservations.endRun(1, run))
                .isNotNull()
                .satisfies(owed -> assertThat(owed.readsLedger()).isTrue());
    }

    /** A run of the item that a fire found busy, ended: the item is then held for the audit. */
    private void heldAfterAFireFoundItBusy(int item) {
        Reservation run = reservations.reserve(item);
        reservations.missedWhileBusy(item);
        assertThat(reservations.endRun(item, run)).isNotNull();
    }

    @Test
    void anItemHeldForAnAuditThatFoundNoWorkForItIsFreed() {
        heldAfterAFireFoundItBusy(1);
        Map<Integer, Reservation> seen = reservations.heldForAudit();

        reservations.releaseHeld(seen);

        assertThat(reservations.heldForAudit()).isEmpty();
        assertThat(reservations.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anAuditFreesOnlyTheHoldsItSawNotOnesMadeSince() {
        heldAfterAFireFoundItBusy(1);
        Map<Integer, Reservation> seen = reservations.heldForAudit();
        // An earlier audit's work took the hold, ran, and found the item busy again.
        Reservation work = reservations.reserveForAudit(1);
        reservations.missedWhileBusy(1);
        reservations.endRun(1, work);

        reservations.releaseHeld(seen);

        assertThat(reservations.heldForAudit())
                .as("the newer hold waits for its own audit")
                .containsOnlyKeys(1);
        assertThat(reservations.reserve(1)).isNull();
    }

    @Test
    void anAbandonedRunIsFreedAndNotHeldWhenItEnds() {
        Reservation run = reservations.reserve(1);
        assertThat(reservations.start(1, run)).isTrue();
        reservations.missedWhileBusy(1);
        reservations.abandonAll();
        Thread.interrupted();

        assertThat(reservations.endRun(1, run)).isNotNull();

        assertThat(reservations.heldForAudit()).isEmpty();
        assertThat(reservations.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void holdsForTheAuditAreDroppedWhenTheConnectionIsLost() {
        heldAfterAFireFoundItBusy(1);

        reservations.abandonAll();

        assertThat(reservations.heldForAudit()).isEmpty();
        assertThat(reservations.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void aRunThatEndsAfterTheInstanceStoppedHoldingFreesItsItemEvenWhenAFireFoundItBusy() {
        heldAfterAFireFoundItBusy(1);
        Reservation run = reservations.reserve(2);
        reservations.missedWhileBusy(2);

        reservations.stopHolding();

        assertThat(reservations.heldForAudit()).as("freed at once").isEmpty();
        assertThat(reservations.endRun(2, run)).as("its audit is still owed").isNotNull();
        assertThat(reservations.heldForAudit())
                .as("not held for an audit that never comes")
                .isEmpty();
        assertThat(reservations.awaitIdle(Duration.ZERO)).isTrue();
    }

    @Test
    void anItemsEndOwesTheScheduledFiresThatFoundItBusyAndAReadOnceAnythingElseDid() {
        Reservation run = reservations.reserve(1);
        Instant first = Instant.parse("2026-01-01T00:00:01Z");
        reservations.missedByFire(1, first, 3, 7);
        reservations.missedByFire(1, first.plusSeconds(1), 3, 7);

        Owed owed = reservations.endRun(1, run);

        assertThat(owed.fires()).containsExactly(first, first.plusSeconds(1));
        assertThat(owed.readsLedger()).as("known here").isFalse();
        Reservation makeUp = reservations.reserveForAudit(1);
        reservations.missedByFire(1, first.plusSeconds(2), 3, 7);
        reservations.missedWhileBusy(1);
        assertThat(reservations.endRun(1, makeUp).readsLedger())
                .as("an audit found it busy too")
                .isTrue();
    }
}
