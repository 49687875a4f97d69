package io.shardingjob.core.internal.registry;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.ItemParameters;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobConfigurationCodecTest {

    private static final String JOB = "orderSync";

    private static final String CRON = "0/10 * * * * *";

    private static final String TRICKY = " leading space\nsecond line\r\nthird\tcolumn, back\\slash, a=b, key: value,"
            + " #not a comment, !nor this, 订单同步 中文, trailing backslash\\";

    private static JobConfiguration everyFieldNonDefault() {
        return JobConfiguration.builder(JOB)
                .cron("0 15 10 ? * MON-FRI")
                .timeZone("America/New_York")
                .shardingTotalCount(3)
                .shardingItemParameters("0=北京,1=C:\\data\\in,2=a=b#c:d")
                .jobParameter(TRICKY)
                .failover(true)
                .misfire(false)
                .monitorExecution(false)
                .strategy("sticky")
                .description("#" + TRICKY + "\n")
                .disabled(true)
                .retries(3)
                .retryBackoff(java.time.Duration.ofMillis(1500))
                .timeout(java.time.Duration.ofMinutes(2))
                .after("settle")
                .on(FollowOn.COMPLETION)
                .itemWise(true)
                .build();
    }

    private static JobConfiguration decode(String text) {
        return JobConfigurationCodec.decode(JOB, text.getBytes(UTF_8));
    }

    private static String encode(JobConfiguration configuration) {
        return new String(JobConfigurationCodec.encode(configuration), UTF_8);
    }

    @Test
    void roundTripsAConfigurationWithEveryFieldSetToANonDefaultValue() {
        JobConfiguration original = everyFieldNonDefault();

        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(original));

        assertThat(decoded).isEqualTo(original);
        assertThat(decoded.differencesTo(original)).isEmpty();
        assertThat(decoded.jobParameter()).isEqualTo(TRICKY);
        assertThat(decoded.description()).isEqualTo("#" + TRICKY + "\n");
        assertThat(decoded.itemParameters().get(1)).isEqualTo("C:\\data\\in");
        assertThat(decoded.itemParameters().get(2)).isEqualTo("a=b#c:d");
        assertThat(decoded.timeZone()).isEqualTo(ZoneId.of("America/New_York"));
    }

    @Test
    void readsTheJobsFollowedBackTrimmedAndOnInAnyCase() {
        JobConfiguration read = decode("shardingTotalCount=2\nafter= settle , ,bill\non=Completion\n");

        assertThat(read.after()).containsExactly("settle", "bill");
        assertThat(read.on()).isEqualTo(FollowOn.COMPLETION);
        assertThat(read.itemWise()).isFalse();
    }

    @Test
    void rejectsAStoredOnThatIsNeitherValueNamingTheProperty() {
        assertThatThrownBy(() -> decode("after=settle\non=sometimes\n"))
                .isInstanceOf(JobConfigurationException.class)
                .hasMessageContaining("'" + JOB + "'")
                .hasMessageContaining("on")
                .hasMessageContaining("success, completion");
    }

    @Test
    void roundTripsADynamicallyShardedConfiguration() {
        JobConfiguration original = everyFieldNonDefault().toBuilder()
                .shardingItemParameters("")
                .itemWise(false)
                .dynamicSharding(true)
                .build();

        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(original));

        assertThat(decoded).isEqualTo(original);
        assertThat(decoded.dynamicSharding()).isTrue();
    }

    @Test
    void rejectsAStoredConfigurationThatCombinesDynamicShardingWithItemParameters() {
        JobConfigurationException rejection = assertRejected(
                "cron=" + CRON + "\nshardingTotalCount=2\nshardingItemParameters=0=Beijing,1=Shanghai\n"
                        + "dynamicSharding=true\n",
                "shardingItemParameters");

        assertThat(rejection.conflictingProperty()).contains("dynamicSharding");
        assertThat(rejection).hasMessageContaining("cannot be combined with dynamicSharding=true");
    }

    @Test
    void rejectsARetryBackoffThatIsNotADurationNamingTheProperty() {
        assertRejected("cron=" + CRON + "\nretryBackoff=5 seconds\n", "retryBackoff");
    }

    @Test
    void readsAConfigurationStoredBeforeRetriesTimeoutsAndDynamicShardingExistedWithTheirDefaults() {
        JobConfiguration old = decode("cron=" + CRON + "\nshardingTotalCount=2\n");

        assertThat(old.retries()).isZero();
        assertThat(old.retryBackoff()).isZero();
        assertThat(old.hasTimeout()).isFalse();
        assertThat(old.dynamicSharding()).isFalse();
    }

    @Test
    void storesAJobOnDemandWithTheDashAndReadsItBack() {
        JobConfiguration onDemand = JobConfiguration.builder(JOB).cron("-").build();

        byte[] stored = JobConfigurationCodec.encode(onDemand);

        assertThat(new String(stored, UTF_8)).startsWith("cron=-\n");
        assertThat(JobConfigurationCodec.decode(JOB, stored)).isEqualTo(onDemand);
        assertThat(JobConfigurationCodec.decode(JOB, stored).isOnDemand()).isTrue();
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"cron=-\n", "cron=\n", "cron=   \n", "shardingTotalCount=2\n"})
    void readsADashABlankOrAMissingStoredCronAsAJobOnDemand(String text) {
        JobConfiguration decoded = decode(text);

        assertThat(decoded.isOnDemand()).isTrue();
        assertThat(decoded.cron()).isEqualTo("-");
    }

    @Test
    void roundTripsTheDefaults() {
        JobConfiguration original = JobConfiguration.builder(JOB).cron(CRON).build();

        assertThat(JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(original)))
                .isEqualTo(original);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                " leading space",
                "   three leading spaces",
                "trailing space ",
                "line one\nline two",
                "\n",
                "carriage\rreturn",
                "back\\slash",
                "trailing backslash\\",
                "\\u0041 is not an escape",
                "=starts with equals",
                ":starts with colon",
                "#starts with hash",
                "!starts with bang",
                "key: value = other",
                "订单同步任务",
                "emoji 😀",
            })
    void roundTripsAnyJobParameterAndDescription(String value) {
        JobConfiguration original = JobConfiguration.builder(JOB)
                .cron(CRON)
                .jobParameter(value)
                .description(value)
                .build();

        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(original));

        assertThat(decoded.jobParameter()).isEqualTo(value);
        assertThat(decoded.description()).isEqualTo(value);
    }

    @ParameterizedTest(name = "U+{1}")
    @CsvSource({"' x', 0020", "'\tx', 0009", "'\fx', 000C"})
    void keepsALeadingCharacterThatPropertiesTreatsAsWhitespace(String value, String codePoint) {
        JobConfiguration original = JobConfiguration.builder(JOB)
                .cron(CRON)
                .jobParameter(value)
                .description(value)
                .build();

        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(original));

        assertThat(decoded.jobParameter())
                .as("jobParameter starting with U+%s", codePoint)
                .isEqualTo(value);
        assertThat(decoded.description())
                .as("description starting with U+%s", codePoint)
                .isEqualTo(value);
    }

    @Test
    void doesNotStoreOverwrite() {
        JobConfiguration local =
                everyFieldNonDefault().toBuilder().overwrite(true).build();

        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, JobConfigurationCodec.encode(local));

        assertThat(encode(local)).doesNotContain("overwrite");
        assertThat(decoded.overwrite()).isFalse();
        assertThat(decoded.differencesTo(local)).isEmpty();
    }

    @Test
    void writesHumanReadableKeyValueLines() {
        JobConfiguration configuration = JobConfiguration.builder(JOB)
                .cron(CRON)
                .timeZone("Asia/Shanghai")
                .shardingTotalCount(3)
                .shardingItemParameters("0=Beijing,1=Shanghai")
                .description("每日同步")
                .build();

        String text = encode(configuration);

        assertThat(text)
                .contains("shardingTotalCount=3")
                .contains("shardingItemParameters=0=Beijing,1=Shanghai")
                .contains("cron=0/10 * * * * *")
                .contains("timeZone=Asia/Shanghai")
                .contains("strategy=average")
                .contains("failover=false")
                .contains("description=每日同步")
                .contains("retryBackoff=PT0S")
                .contains("dynamicSharding=false");
        List<String> lines = Arrays.asList(text.split("\n"));
        assertThat(lines).allMatch(line -> line.matches("[A-Za-z]+=.*"));
        assertThat(lines.stream().map(line -> line.substring(0, line.indexOf('='))))
                .containsExactlyInAnyOrder(
                        "cron",
                        "timeZone",
                        "shardingTotalCount",
                        "shardingItemParameters",
                        "jobParameter",
                        "failover",
                        "misfire",
                        "misfirePolicy",
                        "monitorExecution",
                        "strategy",
                        "description",
                        "disabled",
                        "retries",
                        "retryBackoff",
                        "timeout",
                        "dynamicSharding",
                        "after",
                        "on",
                        "itemWise");
    }

    @Test
    void keepsAMultiLineValueOnOneLine() {
        String text = encode(JobConfiguration.builder(JOB)
                .cron(CRON)
                .description("first\nsecond")
                .build());

        assertThat(text).contains("description=first\\nsecond\n");
    }

    @Test
    void ignoresUnknownKeys() {
        JobConfiguration decoded = decode("""
            cron=0/10 * * * * *
            shardingTotalCount=2
            addedInAFutureVersion=whatever
            owner=team-orders
            """);

        assertThat(decoded)
                .isEqualTo(JobConfiguration.builder(JOB)
                        .cron(CRON)
                        .shardingTotalCount(2)
                        .build());
    }

    @Test
    void givesMissingKeysTheirDefaults() {
        JobConfiguration decoded = decode("cron=0/10 * * * * *\n");

        assertThat(decoded).isEqualTo(JobConfiguration.builder(JOB).cron(CRON).build());
        assertThat(decoded.name()).isEqualTo(JOB);
        assertThat(decoded.shardingTotalCount()).isEqualTo(1);
        assertThat(decoded.timeZone()).isEqualTo(ZoneId.systemDefault());
        assertThat(decoded.itemParameters()).isEqualTo(ItemParameters.none());
        assertThat(decoded.jobParameter()).isEmpty();
        assertThat(decoded.failover()).isFalse();
        assertThat(decoded.misfire()).isTrue();
        assertThat(decoded.monitorExecution()).isTrue();
        assertThat(decoded.strategy()).isEqualTo("average");
        assertThat(decoded.description()).isEmpty();
        assertThat(decoded.disabled()).isFalse();
        assertThat(decoded.overwrite()).isFalse();
    }

    @Test
    void readsTextAnOperatorEditedByHand() {
        JobConfiguration decoded = decode("""
            # edited with zkCli
            cron = 0 0 2 * * *

            shardingTotalCount = 4 \s
            failover = TRUE
            misfire: false
            description=\\u8ba2\\u5355
            """);

        assertThat(decoded.cron()).isEqualTo("0 0 2 * * *");
        assertThat(decoded.shardingTotalCount()).isEqualTo(4);
        assertThat(decoded.failover()).isTrue();
        assertThat(decoded.misfire()).isFalse();
        assertThat(decoded.description()).isEqualTo("订单");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "shardingTotalCount=abc          | shardingTotalCount     | 'abc'",
                "shardingTotalCount=1.5          | shardingTotalCount     | '1.5'",
                "shardingTotalCount=99999999999  | shardingTotalCount     | '99999999999'",
                "shardingTotalCount=0            | shardingTotalCount     | at least 1",
                "shardingTotalCount=-2           | shardingTotalCount     | at least 1",
                "shardingTotalCount=50000        | shardingTotalCount     | at most 10000, was 50000",
                "failover=yes                    | failover               | 'yes'",
                "misfire=1                       | misfire                | '1'",
                "monitorExecution=               | monitorExecution       | ''",
                "disabled=on                     | disabled               | 'on'",
                "timeZone=Mars/Olympus           | timeZone               | 'Mars/Olympus'",
                "shardingItemParameters=0=a,5=b  | shardingItemParameters | item 5",
                "strategy=                       | strategy               | sharding strategy",
                "cron=* * * * *                  | cron                   | six",
            })
    void rejectsAnInvalidStoredValueNamingTheProperty(String line, String property, String fragment) {
        JobConfigurationException rejection = assertRejected("cron=0/10 * * * * *\n" + line + "\n", property);

        assertThat(rejection).hasMessageContaining(fragment);
    }

    @Test
    void rejectsUnreadableStoredText() {
        JobConfigurationException rejection =
                assertRejected("cron=0/10 * * * * *\ndescription=\\uZZZZ\n", "configuration");

        assertThat(rejection).hasMessageContaining("unreadable");
    }

    private static JobConfigurationException assertRejected(String text, String property) {
        JobConfigurationException rejection = catchThrowableOfType(JobConfigurationException.class, () -> decode(text));

        assertThat(rejection).as("a JobConfigurationException for %s", property).isNotNull();
        assertThat(rejection.jobName()).isEqualTo(JOB);
        assertThat(rejection.property()).isEqualTo(property);
        assertThat(rejection).hasMessageContaining(JOB).hasMessageContaining(property);
        return rejection;
    }
}
