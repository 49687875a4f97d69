package io.shardingjob.core.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardingjob.core.config.FireSchedule;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.operation.InvalidOperationException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rules of {@link OperatorInputs} alone, without ZooKeeper: each refusal names the job, the input and the limit. */
class OperatorInputsTest {

    private static final String JOB = "orders";

    /** Refuses every cron with a seconds field of 60 or more, as Spring's reader would. */
    private static final FireSchedule STRICT = new FireSchedule() {
        @Override
        public java.time.Instant nextFireAfter(JobConfiguration configuration, java.time.Instant after) {
            return null;
        }

        @Override
        public void check(JobConfiguration configuration) {
            if (Integer.parseInt(configuration.cron().split(" ")[0]) > 59) {
                throw new IllegalArgumentException("the second is outside 0..59");
            }
        }
    };

    @ParameterizedTest(name = "item {0} of {1}: accepted {2}")
    @CsvSource({"0, 4, true", "3, 4, true", "4, 4, false", "-1, 4, false", "0, 1, true", "1, 1, false"})
    void acceptsOnlyItemsWithinZeroToTheCountLessOne(int item, int count, boolean accepted) {
        if (accepted) {
            assertThat(OperatorInputs.item(JOB, item, count)).isEqualTo(item);
        } else {
            InvalidOperationException refused =
                    catchThrowableOfType(InvalidOperationException.class, () -> OperatorInputs.item(JOB, item, count));
            assertThat(refused.jobName()).isEqualTo(JOB);
            assertThat(refused.input()).isEqualTo("item");
            assertThat(refused).hasMessageContaining("'orders'").hasMessageContaining("0.." + (count - 1));
        }
    }

    @Test
    void acceptsAWellFormedInstanceIdWhetherOrNotItIsRegistered() {
        assertThat(OperatorInputs.instanceId(JOB, "10.0.0.5@-@4242")).isEqualTo("10.0.0.5@-@4242");
        assertThat(OperatorInputs.instanceId(JOB, "pod-7f9c")).isEqualTo("pod-7f9c");
    }

    @ParameterizedTest(name = "instance id ''{0}''")
    @CsvSource({"a/b", "'a b'", "''", "'   '", "../leader"})
    void refusesAnInstanceIdThatCouldNotBeANodeName(String id) {
        InvalidOperationException refused =
                catchThrowableOfType(InvalidOperationException.class, () -> OperatorInputs.instanceId(JOB, id));
        assertThat(refused.input()).isEqualTo("instanceId");
    }

    @Test
    void refusesAnInstanceIdLongerThanANameMayBe() {
        assertThat(OperatorInputs.instanceId(JOB, "a".repeat(255))).hasSize(255);
        assertThatThrownBy(() -> OperatorInputs.instanceId(JOB, "a".repeat(256)))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("256 characters")
                .hasMessageContaining("255");
    }

    @Test
    void boundsAJobParameterInUtf8BytesNotCharacters() {
        assertThat(OperatorInputs.jobParameter(JOB, null)).isNull();
        assertThat(OperatorInputs.jobParameter(JOB, "x".repeat(16 * 1024))).hasSize(16 * 1024);
        // 6,000 characters, but 18,000 bytes: each euro sign takes three.
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class, () -> OperatorInputs.jobParameter(JOB, "€".repeat(6_000)));
        assertThat(refused.input()).isEqualTo("jobParameter");
        assertThat(refused).hasMessageContaining("18000 bytes").hasMessageContaining("16384");
        assertThatThrownBy(() -> OperatorInputs.jobParameter(JOB, "x".repeat(16 * 1024 + 1)))
                .isInstanceOf(InvalidOperationException.class);
    }

    @Test
    void aRefusedInputOfMegabytesDoesNotMakeAMessageOfMegabytes() {
        FireSchedule unreadable = new FireSchedule() {
            @Override
            public java.time.Instant nextFireAfter(JobConfiguration configuration, java.time.Instant after) {
                return null;
            }

            @Override
            public void check(JobConfiguration configuration) {
                throw new IllegalArgumentException("unreadable");
            }
        };
        JobConfiguration huge = JobConfiguration.builder(JOB)
                .cron("9".repeat(2_000_000) + " * * * * *")
                .build();

        InvalidOperationException refused =
                catchThrowableOfType(InvalidOperationException.class, () -> OperatorInputs.cron(huge, unreadable));

        assertThat(refused.getMessage()).hasSizeLessThan(200).contains("2000010 characters");
    }

    @ParameterizedTest(name = "count {0}")
    @CsvSource({"0", "-3", "10001"})
    void refusesACountOutsideOneToTheMostItemsAJobMayHave(int count) {
        assertThatThrownBy(() -> OperatorInputs.shardingTotalCount(JOB, count))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("shardingTotalCount")
                .hasMessageContaining("1..10000");
    }

    @Test
    void aDefinitionIsRefusedForACronTheScheduleCannotReadOrAMissingHandler() {
        JobConfiguration badCron =
                JobConfiguration.builder(JOB).cron("75 * * * * *").build();
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class, () -> OperatorInputs.definition(badCron, "exporter", STRICT));
        assertThat(refused.input()).isEqualTo("cron");
        assertThat(refused).hasMessageContaining("'75 * * * * *'").hasMessageContaining("outside 0..59");

        JobConfiguration good =
                JobConfiguration.builder(JOB).cron("5 * * * * *").build();
        assertThat(OperatorInputs.definition(good, "exporter", STRICT)).isEqualTo(JobConfigurationCodec.encode(good));
        assertThatThrownBy(() -> OperatorInputs.definition(good, " ", STRICT))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> OperatorInputs.definition(good, "a\nstate=removing", STRICT))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("one line");
    }

    @Test
    void aChangeChecksWhatChangedAndTheWholeStoredSize() {
        JobConfiguration current = JobConfiguration.builder(JOB)
                .cron("0 * * * * *")
                .jobParameter("p".repeat(20_000))
                .build();
        // Stored before the bound existed: a change of another setting is still taken.
        JobConfiguration disabled = current.toBuilder().disabled(true).build();
        assertThat(OperatorInputs.configurationChange(current, disabled, STRICT))
                .isEqualTo(JobConfigurationCodec.encode(disabled));
        assertThatThrownBy(() -> OperatorInputs.configurationChange(
                        current, current.toBuilder().cron("99 * * * * *").build(), STRICT))
                .isInstanceOf(InvalidOperationException.class)
                .hasMessageContaining("cron");

        String manyParameters = IntStream.range(0, 10_000)
                .mapToObj(item -> item + "=" + "v".repeat(30))
                .collect(Collectors.joining(","));
        InvalidOperationException refused = catchThrowableOfType(
                InvalidOperationException.class,
                () -> OperatorInputs.configurationChange(
                        current,
                        current.toBuilder()
                                .shardingTotalCount(10_000)
                                .shardingItemParameters(manyParameters)
                                .build(),
                        STRICT));
        assertThat(refused.input()).isEqualTo("shardingItemParameters");
        assertThat(refused).hasMessageContaining("262144");
    }

    @Test
    void aConfigurationLargerThanHalfAPacketIsNotStored() {
        JobConfiguration huge = JobConfiguration.builder(JOB)
                .cron("0 * * * * *")
                .description("d".repeat(600 * 1024))
                .build();
        InvalidOperationException refused =
                catchThrowableOfType(InvalidOperationException.class, () -> OperatorInputs.encoded(huge));
        assertThat(refused.input()).isEqualTo("configuration");
        assertThat(refused).hasMessageContaining("524288");
    }
}
