package io.shardingjob.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.ZoneId;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class JobConfigurationTest {

    private static final String JOB = "orderSync";

    private static final String CRON = "0/10 * * * * *";

    private static JobConfiguration.Builder valid() {
        return JobConfiguration.builder(JOB).cron(CRON);
    }

    private static JobConfiguration everythingSet() {
        return JobConfiguration.builder(JOB)
                .cron("0 0/5 * * * *")
                .timeZone("Asia/Shanghai")
                .shardingTotalCount(3)
                .shardingItemParameters("0=Beijing,1=Shanghai,2=Guangzhou")
                .jobParameter("region=cn")
                .failover(true)
                .misfire(false)
                .monitorExecution(false)
                .strategy("sticky")
                .description("Synchronises orders")
                .disabled(true)
                .overwrite(true)
                .retries(2)
                .retryBackoff(java.time.Duration.ofSeconds(1))
                .timeout(java.time.Duration.ofSeconds(30))
                .after("settle")
                .on(FollowOn.COMPLETION)
                .build();
    }

    /** Every field that dynamic sharding leaves meaningful, with dynamic sharding on. */
    private static JobConfiguration everythingSetWithDynamicSharding() {
        return everythingSet().toBuilder()
                .shardingItemParameters("")
                .dynamicSharding(true)
                .build();
    }

    @Test
    void rejectsANegativeRetryCountNamingTheProperty() {
        assertRejected(() -> valid().retries(-1).build(), JOB, "retries");
    }

    @Test
    void rejectsANegativeTimeoutAndBackoffNamingTheProperty() {
        assertRejected(() -> valid().timeout(java.time.Duration.ofSeconds(-1)).build(), JOB, "timeout");
        assertRejected(
                () -> valid().retryBackoff(java.time.Duration.ofSeconds(-1)).build(), JOB, "retryBackoff");
    }

    @Test
    void fillsInTheDefaultsOfEveryOptionalProperty() {
        JobConfiguration configuration = valid().build();

        assertThat(configuration.name()).isEqualTo(JOB);
        assertThat(configuration.cron()).isEqualTo(CRON);
        assertThat(configuration.timeZone()).isEqualTo(ZoneId.systemDefault());
        assertThat(configuration.shardingTotalCount()).isEqualTo(1);
        assertThat(configuration.itemParameters()).isEqualTo(ItemParameters.none());
        assertThat(configuration.jobParameter()).isEmpty();
        assertThat(configuration.failover()).isFalse();
        assertThat(configuration.misfire()).isTrue();
        assertThat(configuration.monitorExecution()).isTrue();
        assertThat(configuration.strategy()).isEqualTo("average");
        assertThat(configuration.description()).isEmpty();
        assertThat(configuration.disabled()).isFalse();
        assertThat(configuration.overwrite()).isFalse();
    }

    @Test
    void keepsEveryValueGivenToTheBuilder() {
        JobConfiguration configuration = everythingSet();

        assertThat(configuration.cron()).isEqualTo("0 0/5 * * * *");
        assertThat(configuration.timeZone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
        assertThat(configuration.shardingTotalCount()).isEqualTo(3);
        assertThat(configuration.itemParameters().get(1)).isEqualTo("Shanghai");
        assertThat(configuration.jobParameter()).isEqualTo("region=cn");
        assertThat(configuration.failover()).isTrue();
        assertThat(configuration.misfire()).isFalse();
        assertThat(configuration.monitorExecution()).isFalse();
        assertThat(configuration.strategy()).isEqualTo("sticky");
        assertThat(configuration.description()).isEqualTo("Synchronises orders");
        assertThat(configuration.disabled()).isTrue();
        assertThat(configuration.overwrite()).isTrue();
    }

    @Test
    void acceptsASixFieldCronAndAZoneId() {
        JobConfiguration configuration =
                valid().cron("0/10 * * * * *").timeZone("Asia/Shanghai").build();

        assertThat(configuration.cron()).isEqualTo("0/10 * * * * *");
        assertThat(configuration.timeZone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"UTC", "Z", "GMT+8", "+08:00", "Europe/Berlin", " Asia/Shanghai "})
    void acceptsAnyZoneIdText(String zone) {
        assertThat(valid().timeZone(zone).build().timeZone()).isEqualTo(ZoneId.of(zone.trim()));
    }

    @Test
    void trimsTheCronAndTheStrategy() {
        JobConfiguration configuration =
                valid().cron("  0 0 12 * * MON-FRI ").strategy(" sticky ").build();

        assertThat(configuration.cron()).isEqualTo("0 0 12 * * MON-FRI");
        assertThat(configuration.strategy()).isEqualTo("sticky");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "orderSync", "order-sync_v2.daily", "0job", "JOB.1"})
    void acceptsANameOfLettersDigitsDotsUnderscoresAndDashes(String name) {
        assertThat(JobConfiguration.builder(name).cron(CRON).build().name()).isEqualTo(name);
    }

    @Test
    void usesTheLastTimeZoneGivenWhetherTextOrZoneId() {
        assertThat(valid().timeZone("Asia/Shanghai")
                        .timeZone(ZoneId.of("UTC"))
                        .build()
                        .timeZone())
                .isEqualTo(ZoneId.of("UTC"));
        assertThat(valid().timeZone(ZoneId.of("UTC"))
                        .timeZone("Asia/Shanghai")
                        .build()
                        .timeZone())
                .isEqualTo(ZoneId.of("Asia/Shanghai"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void rejectsAShardingTotalCountBelowOne(int count) {
        JobConfigurationException rejection =
                assertRejected(() -> valid().shardingTotalCount(count).build(), JOB, "shardingTotalCount");

        assertThat(rejection).hasMessageContaining("at least 1").hasMessageContaining(String.valueOf(count));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 999, JobConfiguration.MAX_SHARDING_TOTAL_COUNT})
    void acceptsAShardingTotalCountUpToTheLimit(int count) {
        assertThat(valid().shardingTotalCount(count).build().shardingTotalCount())
                .isEqualTo(count);
    }

    @ParameterizedTest(name = "{0} items")
    @ValueSource(ints = {JobConfiguration.MAX_SHARDING_TOTAL_COUNT + 1, 50_000, 100_000_000, Integer.MAX_VALUE})
    void rejectsAShardingTotalCountBeyondWhatTheRegistryCanHoldNamingTheLimitAndTheValue(int count) {
        JobConfigurationException rejection =
                assertRejected(() -> valid().shardingTotalCount(count).build(), JOB, "shardingTotalCount");

        assertThat(rejection)
                .hasMessageContaining("must be at most 10000, was " + count)
                .hasMessageContaining("jute.maxbuffer");
    }

    @ParameterizedTest(name = "cron ''{0}''")
    @NullAndEmptySource
    @ValueSource(strings = {"-", " - ", "   ", "\t\n"})
    void takesADashAMissingOrABlankCronForAJobOnDemand(String cron) {
        JobConfiguration configuration = valid().cron(cron).build();

        assertThat(configuration.isOnDemand()).isTrue();
        assertThat(configuration.cron()).isEqualTo(JobConfiguration.ON_DEMAND).isEqualTo("-");
    }

    @Test
    void makesAJobThatSetsNoCronAJobOnDemand() {
        JobConfiguration configuration = JobConfiguration.builder(JOB).build();

        assertThat(configuration.isOnDemand()).isTrue();
        assertThat(configuration.cron()).isEqualTo("-");
    }

    @ParameterizedTest(name = "cron ''{0}''")
    @ValueSource(strings = {"0/10 * * * * *", "0 0 12 * * MON-FRI"})
    void takesAJobWithACronForAScheduledOne(String cron) {
        assertThat(valid().cron(cron).build().isOnDemand()).isFalse();
    }

    @Test
    void turnsAJobOnDemandIntoAScheduledOneAndBack() {
        JobConfiguration onDemand = valid().cron("-").build();

        JobConfiguration scheduled = onDemand.toBuilder().cron(CRON).build();

        assertThat(scheduled.isOnDemand()).isFalse();
        assertThat(scheduled.toBuilder().cron("").build()).isEqualTo(onDemand);
        assertThat(onDemand.differencesTo(scheduled)).containsExactly("cron: '-' -> '" + CRON + "'");
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"--", "* -", "- -"})
    void rejectsACronThatOnlyLooksLikeADash(String cron) {
        assertRejected(() -> valid().cron(cron).build(), JOB, "cron");
    }

    @ParameterizedTest(name = "''{0}'' has {1} fields")
    @CsvSource(
            delimiter = '|',
            value = {
                "0/10 * * * *          | 5",
                "0 0 12 * * ? 2030     | 7",
                "@hourly               | 1",
                "0 0 12 * * * * *      | 8",
            })
    void rejectsACronWithoutExactlySixFields(String cron, int fields) {
        JobConfigurationException rejection =
                assertRejected(() -> valid().cron(cron).build(), JOB, "cron");

        assertThat(rejection)
                .hasMessageContaining("'" + cron + "'")
                .hasMessageContaining("has " + fields + " fields")
                .hasMessageContaining("six")
                .hasMessageContaining("second minute hour day-of-month month day-of-week")
                .hasMessageContaining("'-' for a job that fires only when triggered");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Mars/Olympus", "Asia/Shang hai", "not a zone", "GMT+25", ""})
    void rejectsAnUnknownTimeZone(String zone) {
        JobConfigurationException rejection =
                assertRejected(() -> valid().timeZone(zone).build(), JOB, "timeZone");

        assertThat(rejection).hasMessageContaining("'" + zone + "'").hasMessageContaining("zone id");
    }

    @Test
    void rejectsAMissingTimeZoneNamingTheJobAndTheProperty() {
        assertRejected(() -> valid().timeZone((ZoneId) null).build(), JOB, "timeZone");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a/b", "has space", ".hidden", "-dash", "_under", "订单", "tab\tname", "x:y", "a/../b"})
    void rejectsAnInvalidJobName(String name) {
        JobConfigurationException rejection =
                assertRejected(() -> JobConfiguration.builder(name).cron(CRON).build(), name, "name");

        assertThat(rejection).hasMessageContaining("'" + name + "'").hasMessageContaining("letters, digits");
    }

    @Test
    void rejectsAMissingJobName() {
        assertRejected(() -> JobConfiguration.builder(null).cron(CRON).build(), "null", "name");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "\t"})
    void rejectsABlankStrategy(String strategy) {
        JobConfigurationException rejection =
                assertRejected(() -> valid().strategy(strategy).build(), JOB, "strategy");

        assertThat(rejection).hasMessageContaining("sharding strategy").hasMessageContaining("average");
    }

    @ParameterizedTest(name = "''{1}'' with count {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1 | 1=x            | item 1",
                "3 | 0=a,3=b        | item 3",
                "3 | 0=a,0=b        | item 0",
                "3 | Beijing        | Beijing",
                "1000 | 999=x,1000=y | item 1000",
            })
    void rejectsInvalidItemParameters(int count, String parameters, String offending) {
        JobConfigurationException rejection = assertRejected(
                () -> valid().shardingTotalCount(count)
                        .shardingItemParameters(parameters)
                        .build(),
                JOB,
                "shardingItemParameters");

        assertThat(rejection).hasMessageContaining(offending);
    }

    @ParameterizedTest(name = "''{0}'' with count {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0=Beijing,1=Shanghai | 2",
                "0=Beijing,1=Shanghai | 1",
                "0=                   | 1",
                "Beijing              | 1",
            })
    void rejectsItemParametersWithDynamicShardingNamingBothPropertiesWhateverTheCount(String parameters, int count) {
        JobConfigurationException rejection = assertRejected(
                () -> valid().shardingTotalCount(count)
                        .shardingItemParameters(parameters)
                        .dynamicSharding(true)
                        .build(),
                JOB,
                "shardingItemParameters");

        assertThat(rejection.conflictingProperty()).contains("dynamicSharding");
        assertThat(rejection)
                .hasMessage("Job 'orderSync': invalid shardingItemParameters: '" + parameters
                        + "' cannot be combined with dynamicSharding=true: the number of items then follows the"
                        + " number of live instances, so no item has a fixed parameter; leave shardingItemParameters"
                        + " empty, or set dynamicSharding to false to keep a fixed shardingTotalCount with a"
                        + " parameter per item");
    }

    @Test
    void rejectsItemParametersWithDynamicShardingWhenTheRecordIsBuiltDirectly() {
        ItemParameters forTwo = ItemParameters.parse(JOB, "0=Beijing,1=Shanghai", 2);

        JobConfigurationException rejection = assertRejected(
                () -> new JobConfiguration(
                        JOB,
                        CRON,
                        ZoneId.of("UTC"),
                        2,
                        forTwo,
                        "",
                        false,
                        true,
                        true,
                        "average",
                        "",
                        false,
                        false,
                        0,
                        null,
                        null,
                        true,
                        MisfirePolicy.ONCE,
                        List.of(),
                        FollowOn.SUCCESS,
                        false),
                JOB,
                "shardingItemParameters");

        assertThat(rejection.conflictingProperty()).contains("dynamicSharding");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void acceptsDynamicShardingWithoutItemParameters(String parameters) {
        JobConfiguration configuration =
                valid().shardingItemParameters(parameters).dynamicSharding(true).build();

        assertThat(configuration.dynamicSharding()).isTrue();
        assertThat(configuration.itemParameters()).isEqualTo(ItemParameters.none());
    }

    @Test
    void acceptsDynamicShardingBesideTheSettingsItMerelyOverrides() {
        // The configured count and strategy are not used while dynamic sharding is on, but they are what the job
        // falls back to when it is turned off again: unused, not contradictory. The same holds for a misfire policy
        // while misfire is off.
        JobConfiguration configuration = valid().shardingTotalCount(8)
                .strategy("sticky")
                .dynamicSharding(true)
                .misfire(false)
                .misfirePolicy(MisfirePolicy.ALL)
                .build();

        assertThat(configuration.shardingTotalCount()).isEqualTo(8);
        assertThat(configuration.strategy()).isEqualTo("sticky");
        assertThat(configuration.misfirePolicy()).isEqualTo(MisfirePolicy.ALL);
    }

    @Test
    void namesAnInvalidValueOnItsOwnWithoutAConflictingProperty() {
        assertThat(catchThrowableOfType(
                                JobConfigurationException.class,
                                () -> valid().retries(-1).build())
                        .conflictingProperty())
                .isEmpty();
    }

    @Test
    void rejectsItemParametersThatOutgrowTheCountWhenTheRecordIsBuiltDirectly() {
        ItemParameters forFour = ItemParameters.parse(JOB, "0=a,3=d", 4);

        assertRejected(
                () -> new JobConfiguration(
                        JOB,
                        CRON,
                        ZoneId.of("UTC"),
                        2,
                        forFour,
                        "",
                        false,
                        true,
                        true,
                        "average",
                        "",
                        false,
                        false,
                        0,
                        null,
                        null,
                        false,
                        MisfirePolicy.ONCE,
                        List.of(),
                        FollowOn.SUCCESS,
                        false),
                JOB,
                "shardingItemParameters");
    }

    @Test
    void roundTripsThroughToBuilderToAnEqualConfiguration() {
        JobConfiguration original = everythingSet();

        JobConfiguration copy = original.toBuilder().build();

        assertThat(copy).isEqualTo(original).hasSameHashCodeAs(original);
        assertThat(copy.differencesTo(original)).isEmpty();
    }

    @Test
    void roundTripsADynamicallyShardedConfigurationThroughToBuilder() {
        JobConfiguration original = everythingSetWithDynamicSharding();

        assertThat(original.toBuilder().build()).isEqualTo(original);
    }

    @Test
    void roundTripsTheDefaultsThroughToBuilder() {
        JobConfiguration original = valid().build();

        assertThat(original.toBuilder().build()).isEqualTo(original);
    }

    @Test
    void findsNoDifferencesToAnEqualConfiguration() {
        assertThat(everythingSet().differencesTo(everythingSet())).isEmpty();
    }

    @Test
    void listsExactlyTheChangedProperties() {
        JobConfiguration before = everythingSet();
        JobConfiguration after =
                before.toBuilder().shardingTotalCount(4).cron("0 0 * * * *").build();

        List<String> differences = before.differencesTo(after);

        assertThat(differences).hasSize(2);
        assertThat(differences.stream().map(JobConfigurationTest::property))
                .containsExactlyInAnyOrder("shardingTotalCount", "cron");
        assertThat(differences)
                .anySatisfy(difference -> assertThat(difference).contains("3").contains("4"))
                .anySatisfy(difference ->
                        assertThat(difference).contains("0 0/5 * * * *").contains("0 0 * * * *"));
    }

    @Test
    void rejectsAJobThatFollowsItselfOrANameTwiceOrNotAName() {
        assertRejected(() -> valid().after(JOB).build(), JOB, "after");
        assertRejected(() -> valid().after("settle", "settle").build(), JOB, "after");
        assertRejected(() -> valid().after("not a name").build(), JOB, "after");
    }

    @Test
    void rejectsItemWiseWithoutJobsToFollowOrWithDynamicSharding() {
        assertRejected(() -> valid().itemWise(true).build(), JOB, "itemWise");
        assertRejected(() -> valid().after("settle", "bill").itemWise(true).build(), JOB, "itemWise");
        assertRejected(
                () -> valid().after("settle")
                        .itemWise(true)
                        .dynamicSharding(true)
                        .build(),
                JOB,
                "itemWise");
    }

    @Test
    void followsNoJobOnSuccessByDefault() {
        JobConfiguration configuration = valid().build();

        assertThat(configuration.after()).isEmpty();
        assertThat(configuration.followsJobs()).isFalse();
        assertThat(configuration.on()).isEqualTo(FollowOn.SUCCESS);
        assertThat(configuration.itemWise()).isFalse();
    }

    static Stream<Arguments> singleChanges() {
        return Stream.of(
                change("cron", builder -> builder.cron("0 0 1 * * *")),
                change("timeZone", builder -> builder.timeZone("UTC")),
                change("shardingTotalCount", builder -> builder.shardingTotalCount(5)),
                change("shardingItemParameters", builder -> builder.shardingItemParameters("0=Beijing")),
                change("jobParameter", builder -> builder.jobParameter("region=eu")),
                change("failover", builder -> builder.failover(false)),
                change("misfire", builder -> builder.misfire(true)),
                change("monitorExecution", builder -> builder.monitorExecution(true)),
                change("strategy", builder -> builder.strategy("average")),
                change("description", builder -> builder.description("")),
                change("disabled", builder -> builder.disabled(false)),
                change("after", builder -> builder.after("bill")),
                change("on", builder -> builder.on(FollowOn.SUCCESS)),
                change("itemWise", builder -> builder.itemWise(true)));
    }

    private static Arguments change(String property, UnaryOperator<JobConfiguration.Builder> edit) {
        return arguments(property, edit);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("singleChanges")
    void namesASingleChangedProperty(String property, UnaryOperator<JobConfiguration.Builder> edit) {
        JobConfiguration before = everythingSet();
        JobConfiguration after = edit.apply(before.toBuilder()).build();

        assertThat(before.differencesTo(after))
                .singleElement()
                .satisfies(difference -> assertThat(property(difference)).isEqualTo(property));
        assertThat(after.differencesTo(before))
                .singleElement()
                .satisfies(difference -> assertThat(property(difference)).isEqualTo(property));
    }

    @Test
    void ignoresOverwriteWhenListingDifferences() {
        JobConfiguration stored = everythingSet().toBuilder().overwrite(false).build();
        JobConfiguration local = stored.toBuilder().overwrite(true).build();

        assertThat(stored.differencesTo(local)).isEmpty();
        assertThat(local.differencesTo(stored)).isEmpty();
    }

    @Test
    void comparesItemParametersByValueNotByText() {
        JobConfiguration tidy = everythingSet();
        JobConfiguration spaced = tidy.toBuilder()
                .shardingItemParameters(" 2=Guangzhou , 1 = Shanghai,0=Beijing ")
                .build();

        assertThat(tidy.differencesTo(spaced)).isEmpty();
        assertThat(spaced).isEqualTo(tidy);
    }

    private static String property(String difference) {
        return difference.substring(0, difference.indexOf(':'));
    }

    private static JobConfigurationException assertRejected(ThrowingCallable build, String jobName, String property) {
        JobConfigurationException rejection = catchThrowableOfType(JobConfigurationException.class, build);

        assertThat(rejection).as("a JobConfigurationException for %s", property).isNotNull();
        assertThat(rejection.jobName()).isEqualTo(jobName);
        assertThat(rejection.property()).isEqualTo(property);
        assertThat(rejection)
                .hasMessageStartingWith("Job '" + jobName + "': invalid " + property + ": ")
                .hasMessageContaining(property);
        return rejection;
    }
}
