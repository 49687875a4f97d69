package io.shardingjob.core.internal.scheduling.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.internal.scheduling.session.ProofChecks.Step;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The session's proof as the guard judges it, with a session timeout of 9 s: a ninth is 1 s, a third 3 s. */
class ProofChecksTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(9);

    @ParameterizedTest(name = "proven {0} ms ago, runs in the job {1}: {2}")
    @CsvSource(
            nullValues = "none",
            value = {
                "0,     true,  NONE",
                "1000,  true,  NONE",
                "1001,  true,  ASK",
                "1001,  false, ASK",
                "3000,  true,  ASK",
                "3001,  true,  INTERRUPT",
                "3001,  false, ASK",
                "60000, true,  INTERRUPT",
                "60000, false, ASK",
                "none,  true,  INTERRUPT",
                "none,  false, ASK"
            })
    void interruptsTheRunsInTheJobOnceTheLastProofIsOlderThanAThirdOfTheSessionTimeout(
            @Nullable Long provenMillisAgo, boolean runsInJob, Step expected) {
        assertThat(ProofChecks.step(ago(provenMillisAgo), runsInJob, TIMEOUT)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "proven {0} ms ago: next check in {1} ms")
    @CsvSource(
            nullValues = "none",
            value = {"none, 500", "0, 500", "2000, 500", "2800, 201", "3000, 1", "3001, 500", "60000, 500"})
    void checksAgainAfterAnEighteenthOfTheSessionTimeoutOrJustPastTheProofsDeadlineIfSooner(
            @Nullable Long provenMillisAgo, long expectedMillis) {
        assertThat(ProofChecks.untilNextCheck(ago(provenMillisAgo), TIMEOUT))
                .isEqualTo(Duration.ofMillis(expectedMillis));
    }

    /**
     * A run enters the job's code on a proof sent at 0 and nothing proves the session again: the checks begin (and ask
     * for the next proof) when the run began, which may be long after that proof. The run is interrupted just past 3 s
     * however late that was; the interrupt used to wait for the next proof to go unanswered for a ninth more.
     */
    @ParameterizedTest(name = "checks from {0} ms after the proof")
    @CsvSource({"0", "700", "1500", "2500", "2990", "3000"})
    void interruptsARunAtTheLastProofPlusAThirdOfTheSessionTimeoutWheneverTheNextProofWasAsked(long checksFromMillis) {
        Duration now = Duration.ofMillis(checksFromMillis);
        int checks = 0;
        while (ProofChecks.step(now, true, TIMEOUT) != Step.INTERRUPT && checks++ < 1_000) {
            now = now.plus(ProofChecks.untilNextCheck(now, TIMEOUT));
        }

        assertThat(now).isEqualTo(Duration.ofMillis(3001));
    }

    private static @Nullable Duration ago(@Nullable Long millis) {
        return millis == null ? null : Duration.ofMillis(millis);
    }
}
