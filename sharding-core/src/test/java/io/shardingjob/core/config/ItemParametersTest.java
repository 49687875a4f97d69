package io.shardingjob.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ItemParametersTest {

    private static final String JOB = "orderSync";

    @Test
    void parsesTheSeedFormat() {
        ItemParameters parameters = ItemParameters.parse(JOB, "0=Beijing,1=Shanghai,2=Guangzhou", 6);

        assertThat(parameters.get(0)).isEqualTo("Beijing");
        assertThat(parameters.get(1)).isEqualTo("Shanghai");
        assertThat(parameters.get(2)).isEqualTo("Guangzhou");
        assertThat(parameters.asMap())
                .containsExactly(Map.entry(0, "Beijing"), Map.entry(1, "Shanghai"), Map.entry(2, "Guangzhou"));
    }

    @Test
    void givesTheEmptyStringForAnItemWithoutParameter() {
        ItemParameters parameters = ItemParameters.parse(JOB, "0=Beijing,1=Shanghai,2=Guangzhou", 6);

        assertThat(parameters.get(5)).isEmpty();
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "\t"})
    void readsBlankTextAsNoParameters(String text) {
        ItemParameters parameters = ItemParameters.parse(JOB, text, 3);

        assertThat(parameters).isEqualTo(ItemParameters.none());
        assertThat(parameters.asMap()).isEmpty();
        assertThat(parameters.get(0)).isEmpty();
        assertThat(parameters).hasToString("");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                " 0=Beijing, 1=Shanghai ,2=Guangzhou ",
                "0 = Beijing,1 = Shanghai,2 = Guangzhou",
                "  0  =  Beijing  ,  1=Shanghai,\t2=Guangzhou\t"
            })
    void toleratesSpacesAroundEntries(String text) {
        ItemParameters parameters = ItemParameters.parse(JOB, text, 3);

        assertThat(parameters).isEqualTo(ItemParameters.parse(JOB, "0=Beijing,1=Shanghai,2=Guangzhou", 3));
    }

    @Test
    void allowsAnEmptyParameter() {
        ItemParameters parameters = ItemParameters.parse(JOB, "0=Beijing,3=", 4);

        assertThat(parameters.asMap()).containsExactly(Map.entry(0, "Beijing"), Map.entry(3, ""));
        assertThat(parameters.get(3)).isEmpty();
    }

    @Test
    void keepsAnEqualsSignInsideAParameter() {
        ItemParameters parameters = ItemParameters.parse(JOB, "0=a=b", 1);

        assertThat(parameters.get(0)).isEqualTo("a=b");
    }

    @Test
    void ordersItemsAscendingWhateverTheOrderOfTheText() {
        ItemParameters parameters = ItemParameters.parse(JOB, "2=Guangzhou,0=Beijing,1=Shanghai", 3);

        assertThat(parameters.asMap().keySet()).containsExactly(0, 1, 2);
        assertThat(parameters).hasToString("0=Beijing,1=Shanghai,2=Guangzhou");
    }

    @ParameterizedTest(name = "''{0}'' with count {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "3=x           | 3 | item 3",
                "-1=x          | 3 | item -1",
                "0=a,1=b,7=c   | 3 | item 7",
                "0=x           | 0 | item 0",
            })
    void rejectsAParameterIndexOutsideTheCount(String text, int count, String offending) {
        assertRejected(text, count, offending);
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "Beijing        | 'Beijing'",
                "=x             | '=x'",
                "a=b            | 'a'",
                "0=a,,1=b       | ''",
                "0=a,           | ''",
                "0=a, =b        | '=b'",
                "1.5=x          | '1.5'",
            })
    void rejectsAMalformedEntry(String text, String offending) {
        assertRejected(text, 3, offending);
    }

    @ParameterizedTest(name = "''{0}''")
    @CsvSource(
            delimiter = '|',
            value = {
                "0=a,0=b        | item 0",
                "0=a,1=b,1=c    | item 1",
                "2=a, 2 = a     | item 2",
            })
    void rejectsADuplicateIndex(String text, String offending) {
        JobConfigurationException rejection = assertRejected(text, 3, offending);

        assertThat(rejection).hasMessageContaining("twice");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "0=Beijing,1=Shanghai,2=Guangzhou",
                " 2 = Guangzhou , 0=Beijing ",
                "0=,1=,4=",
                "1=a=b,3=北京",
                "0=C:\\data\\in",
                ""
            })
    void roundTripsThroughToStringAndParse(String text) {
        ItemParameters parameters = ItemParameters.parse(JOB, text, 5);

        ItemParameters reparsed = ItemParameters.parse(JOB, parameters.toString(), 5);

        assertThat(reparsed).isEqualTo(parameters);
        assertThat(reparsed.asMap()).isEqualTo(parameters.asMap());
        assertThat(reparsed).hasToString(parameters.toString());
        assertThat(reparsed.hashCode()).isEqualTo(parameters.hashCode());
    }

    @Test
    void exposesAnUnmodifiableMap() {
        ItemParameters parameters = ItemParameters.parse(JOB, "0=Beijing", 1);

        assertThatThrownBy(() -> parameters.asMap().put(1, "x")).isInstanceOf(UnsupportedOperationException.class);
    }

    private static JobConfigurationException assertRejected(String text, int count, String offending) {
        JobConfigurationException rejection =
                catchThrowableOfType(JobConfigurationException.class, () -> ItemParameters.parse(JOB, text, count));

        assertThat(rejection).as("rejection of '%s'", text).isNotNull();
        assertThat(rejection.jobName()).isEqualTo(JOB);
        assertThat(rejection.property()).isEqualTo("shardingItemParameters");
        assertThat(rejection)
                .hasMessageContaining(JOB)
                .hasMessageContaining("shardingItemParameters")
                .hasMessageContaining(offending);
        return rejection;
    }
}
