package io.shardingjob.core.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The skew is the local midpoint of the write's round trip minus the server's stamp, within half the round trip. */
class ClockSkewTest {

    private static final long SENT = 1_800_000_000_000L;

    @ParameterizedTest(name = "sent at +0, answer after {0} ms, stamped {1} ms after sending: skew {2} ± {3} ms")
    @CsvSource(delimiter = '|', textBlock = """
                # round trip | server stamp - sent | skew   | uncertainty | exceeded (bound 5 s)
                  0          | 0                   | 0      | 1           | false
                  10         | 5                   | 0      | 6           | false
                  10         | 0                   | 5      | 6           | false
                  10         | 10                  | -5     | 6           | false
                  4          | -20000              | 20002  | 3           | true
                  4          | 20002               | -20000 | 3           | true
                  2          | -5001               | 5002   | 2           | false
                  2          | -5002               | 5003   | 2           | true
                  2          | 5003                | -5002  | 2           | false
                  2          | 5004                | -5003  | 2           | true
                  3000       | -5000               | 6500   | 1501        | false
                  3000       | -8000               | 9500   | 1501        | true
                """)
    void estimatesTheSkewFromTheMidpointOfTheRoundTrip(
            long roundTripMillis, long stampAfterSending, long skew, long uncertainty, boolean exceeded) {
        ClockSkew measured =
                ClockSkew.measure(SENT, roundTripMillis * 1_000_000L, SENT + stampAfterSending, Duration.ofSeconds(5));

        assertThat(measured.skew()).isEqualTo(Duration.ofMillis(skew));
        assertThat(measured.uncertainty()).isEqualTo(Duration.ofMillis(uncertainty));
        assertThat(measured.measuredAt()).isEqualTo(Instant.ofEpochMilli(SENT + roundTripMillis));
        assertThat(measured.exceeded()).isEqualTo(exceeded);
    }

    @ParameterizedTest(name = "a round trip of {0} ns is ± {1} ms")
    @CsvSource({"1, 2", "1999999, 2", "2000000, 2", "2000001, 3", "999999, 2"})
    void roundsHalfTheRoundTripUpToAWholeMillisecond(long roundTripNanos, long uncertainty) {
        assertThat(ClockSkew.measure(SENT, roundTripNanos, SENT, Duration.ofSeconds(5))
                        .uncertainty())
                .isEqualTo(Duration.ofMillis(uncertainty));
    }

    @Test
    void describesWhichWayAndHowFar() {
        assertThat(ClockSkew.measure(SENT, 4_000_000L, SENT - 20_000, Duration.ofSeconds(5))
                        .describe())
                .isEqualTo("20002 ms ahead of ZooKeeper's (± 3 ms)");
        assertThat(ClockSkew.measure(SENT, 4_000_000L, SENT + 20_002, Duration.ofSeconds(5))
                        .describe())
                .isEqualTo("20000 ms behind ZooKeeper's (± 3 ms)");
    }

    @Test
    void refusesANegativeRoundTrip() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClockSkew.measure(SENT, -1, SENT, Duration.ofSeconds(5)))
                .withMessageContaining("-1 ns");
    }
}
