package io.shardingjob.boot.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardingjob.core.operation.InvalidOperationException;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** An operator's typed item and fire time, read before any operation: a refusal names the job and the input. */
class OperatorRequestTests {

    private static final String JOB = "orders";

    @ParameterizedTest(name = "''{0}'' is not an item number")
    @CsvSource({"two", "''", "1.5", "99999999999"})
    void refusesAnItemThatIsNotAWholeNumber(String text) {
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class,
                () -> OperatorRequest.ofItem(JOB, "disable", text).itemNumber());

        assertThat(refused.jobName()).isEqualTo(JOB);
        assertThat(refused.input()).isEqualTo("item");
        assertThat(refused).hasMessage("Job 'orders': invalid item: '" + text + "' is not an item number");
    }

    @Test
    void readsAnItemNumberWithBlanksAround() {
        assertThat(OperatorRequest.ofItem(JOB, "disable", " 2 ").itemNumber()).isEqualTo(2);
    }

    @Test
    void aRefusedItemOfMegabytesDoesNotMakeAMessageOfMegabytes() {
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class,
                () -> OperatorRequest.ofItem(JOB, "disable", "9".repeat(2_000_000))
                        .itemNumber());

        assertThat(refused.getMessage()).hasSizeLessThan(200).contains("2000000 characters");
    }

    @ParameterizedTest(name = "fire time ''{0}''")
    @CsvSource({"1767225600000", "2026-01-01T00:00:00Z", "' 1767225600000 '"})
    void readsAFireTimeAsEpochMillisecondsOrAnIsoInstant(String text) {
        assertThat(rerun(text).fireTimeInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @ParameterizedTest(name = "fire time ''{0}''")
    @CsvSource({"yesterday", "''", "2026-01-01", "-5"})
    void refusesAFireTimeThatIsNeither(String text) {
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class, () -> rerun(text).fireTimeInstant());

        assertThat(refused.input()).isEqualTo("fireTime");
        assertThat(refused)
                .hasMessageContaining(
                        "'" + text + "' is not a fire time: give epoch milliseconds or an ISO-8601 instant");
    }

    private static OperatorRequest rerun(String fireTime) {
        return OperatorRequest.ofJob(JOB, "rerun", null, null, null, null, null, fireTime);
    }
}
