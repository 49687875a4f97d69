package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.LedgerRules;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The claims this session holds open are never taken for stranded, and claims made ahead go to their fire. */
class OpenClaimsTest {

    private final LocalFires fires = new LocalFires();

    private final OpenClaims openClaims = new OpenClaims(fires);

    private final Instant next = Instant.now().plusSeconds(1);

    private final Claim ahead = Claim.first(5, next, "me", 9, ExecutionSource.NORMAL, 3, 8, next);

    @Test
    void claimsAheadInARequestNotAnsweredYetCountAsInFlightSoThatNoAuditTakesThemForStranded() {
        LedgerRules.Slot slot = new LedgerRules.Slot(5, next);

        openClaims.requestingAhead(List.of(ahead));
        assertThat(openClaims.inFlight()).contains(slot);

        // Answered and kept: in flight as a claim made ahead until its trigger takes it.
        openClaims.claimedAhead(next, List.of(ahead));
        openClaims.answeredAhead(List.of(ahead));
        assertThat(openClaims.inFlight()).contains(slot);
    }

    @Test
    void claimsAheadWhoseRequestFailedAreNoLongerInFlight() {

        openClaims.requestingAhead(List.of(ahead));
        openClaims.answeredAhead(List.of(ahead));

        assertThat(openClaims.inFlight()).isEmpty();
    }

    @Test
    void theFireTakesTheClaimsMadeAheadForItWhenTheSchedulerTellsOfIt() {
        assertThat(openClaims.claimedAhead(next, List.of(ahead))).isTrue();
        assertThat(openClaims.aheadItems(next)).containsExactly(5);

        assertThat(openClaims.sawFire(next)).containsExactlyEntriesOf(Map.of(5, ahead));

        assertThat(fires.hasSeen(next)).isTrue();
        assertThat(openClaims.aheadItems(next)).isEmpty();
        assertThat(openClaims.inFlight())
                .as("still this session's until its run settles it")
                .contains(new LedgerRules.Slot(5, next));
    }

    @Test
    void claimsMadeAheadForAFireAlreadySeenAreNotKeptForATriggerThatWillNotComeAgain() {
        openClaims.sawFire(next);

        assertThat(openClaims.claimedAhead(next, List.of(ahead))).isFalse();

        assertThat(openClaims.aheadItems(next)).isEmpty();
        assertThat(openClaims.inFlight()).isEmpty();
    }
}
