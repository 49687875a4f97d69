package io.shardingjob.core.internal.scheduling.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.internal.ledger.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** What a fire may start here, from what the last audit saw and what the ledger says now. */
class LastAuditTest {

    private final LastAudit lastAudit = new LastAudit();

    private final Claim runOfAnotherSession =
            Claim.first(2, Instant.now(), "a", 7, ExecutionSource.NORMAL, 2, 4, Instant.now());

    @Test
    void anItemAnotherSessionStillRunsIsNotStartedHere() {
        lastAudit.audited(3, Set.of(2, 3), Map.of(2, runOfAnotherSession));

        assertThat(lastAudit.mayStart(2, 3, other -> true)).isFalse();
        assertThat(lastAudit.mayStart(3, 3, other -> true)).isTrue();
    }

    @Test
    void aRunTheAuditSawElsewhereThatHasEndedSinceNoLongerHoldsTheItemBack() {
        lastAudit.audited(3, Set.of(2, 3), Map.of(2, runOfAnotherSession));

        assertThat(lastAudit.mayStart(2, 3, other -> false)).isTrue();
        // Forgotten once seen ended: no further read of the ledger for it.
        assertThat(lastAudit.mayStart(2, 3, other -> true)).isTrue();
    }

    @Test
    void anItemThatMovedHereIsNotStartedBeforeAnAuditOfItsAssignmentHasLooked() {
        lastAudit.audited(3, Set.of(3), Map.of());

        assertThat(lastAudit.mayStart(2, 4, other -> false)).isFalse();
        assertThat(lastAudit.mayStart(3, 4, other -> false)).isTrue();
    }

    @Test
    void aFireWaitingForTheAuditOfAnAssignmentGoesOnOnceThatOrALaterOneIsAudited() {
        lastAudit.audited(3, Set.of(3), Map.of());
        assertThat(lastAudit.whenAudited(3, Duration.ofMinutes(1))).isDone();

        CompletableFuture<Void> ofFour = lastAudit.whenAudited(4, Duration.ofMinutes(1));
        CompletableFuture<Void> ofSix = lastAudit.whenAudited(6, Duration.ofMinutes(1));
        assertThat(ofFour).isNotDone();

        lastAudit.audited(5, Set.of(3), Map.of());
        assertThat(ofFour).isDone();
        assertThat(ofSix).isNotDone();
    }

    @Test
    void aFireWaitsForAnAuditAtMostTheTimeout() {
        CompletableFuture<Void> audited = lastAudit.whenAudited(4, Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(10)).until(audited::isDone);
        assertThat(lastAudit.auditedEpoch()).isEqualTo(-1);
    }
}
