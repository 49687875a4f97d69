package io.shardingjob.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobSetting;
import io.shardingjob.core.config.MisfirePolicy;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.scheduling.JobSettings;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The core's side of the one definition of each job setting: the builders and the codec know exactly the settings
 * {@link JobSetting} lists, under its names, with its defaults. The starter's side is
 * {@code OneDefinitionOfEachJobSettingTests}.
 */
class JobSettingTest {

    private static final String JOB = "orderSync";

    private static final String CRON = "0/10 * * * * *";

    /** A client the builder needs and nothing starts: no setting is read from ZooKeeper. */
    private static final CuratorFramework NEVER_STARTED =
            CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));

    private static JobConfiguration defaults() {
        return JobConfiguration.builder(JOB).cron(CRON).build();
    }

    /** Every setting, read where it ends up; a setting added without a line here does not compile. */
    private static Object valueOf(JobSetting setting, JobConfiguration configuration, JobSettings coordinator) {
        return switch (setting) {
            case CRON -> configuration.cron();
            case TIME_ZONE -> configuration.timeZone();
            case SHARDING_TOTAL_COUNT -> configuration.shardingTotalCount();
            case SHARDING_ITEM_PARAMETERS -> configuration.itemParameters().toString();
            case JOB_PARAMETER -> configuration.jobParameter();
            case FAILOVER -> configuration.failover();
            case MISFIRE -> configuration.misfire();
            case MISFIRE_POLICY -> configuration.misfirePolicy();
            case MONITOR_EXECUTION -> configuration.monitorExecution();
            case STRATEGY -> configuration.strategy();
            case DESCRIPTION -> configuration.description();
            case DISABLED -> configuration.disabled();
            case OVERWRITE -> configuration.overwrite();
            case RETRIES -> configuration.retries();
            case RETRY_BACKOFF -> configuration.retryBackoff();
            case TIMEOUT -> configuration.timeout();
            case DYNAMIC_SHARDING -> configuration.dynamicSharding();
            case AFTER -> configuration.after();
            case ON -> configuration.on();
            case ITEM_WISE -> configuration.itemWise();
            case START_TIMEOUT -> coordinator.timings().startTimeout();
            case RECONCILE_INTERVAL -> coordinator.timings().reconcileInterval();
            case SHARDING_WAIT_TIMEOUT -> coordinator.timings().shardingWaitTimeout();
            case SHUTDOWN_GRACE_PERIOD -> coordinator.timings().shutdownGracePeriod();
            case INTERRUPT_ON_CONNECTION_LOSS -> coordinator.interruptOnConnectionLoss();
            case CATCH_UP_HORIZON -> coordinator.history().catchUpHorizon();
            case LEDGER_RETENTION -> coordinator.history().ledgerRetention();
        };
    }

    private static Set<String> keys(List<JobSetting> settings) {
        return settings.stream().map(JobSetting::key).collect(Collectors.toSet());
    }

    private static Set<String> setterNames(Class<?> builder) {
        return Arrays.stream(builder.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()))
                .filter(method -> method.getReturnType() == builder)
                .map(Method::getName)
                .collect(Collectors.toSet());
    }

    private static Properties stored(byte[] data) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(new String(data, UTF_8)));
        return properties;
    }

    @Test
    void theConfigurationBuilderHasASetterForEveryConfigurationSettingAndNoOther() {
        assertThat(setterNames(JobConfiguration.Builder.class))
                .containsExactlyInAnyOrderElementsOf(keys(JobSetting.of(JobSetting.Scope.CONFIGURATION)));
    }

    /** Its other setters give collaborators (the job, executors, listeners, clock), not values with a default. */
    @Test
    void theCoordinatorBuilderHasASetterForEveryCoordinatorSetting() {
        assertThat(setterNames(JobCoordinatorBuilder.class))
                .containsAll(keys(JobSetting.of(JobSetting.Scope.COORDINATOR)));
    }

    @ParameterizedTest
    @EnumSource(JobSetting.class)
    void aSettingLeftUnsetTakesItsDefault(JobSetting setting) {
        JobConfiguration configuration = defaults();
        JobSettings coordinator =
                JobCoordinator.builder(NEVER_STARTED, configuration).settings();

        Object value = valueOf(setting, configuration, coordinator);

        if (setting == JobSetting.CRON) {
            // The one setting defaults() sets: a job that leaves it unset is on demand.
            assertThat(setting.defaultValue())
                    .contains(JobConfiguration.builder(JOB).build().cron())
                    .contains(JobConfiguration.ON_DEMAND);
        } else {
            assertThat(setting.defaultValue()).contains(value);
        }
    }

    @Test
    void theCodecStoresEveryStoredSettingUnderItsKeyAndNothingElse() throws IOException {
        Properties stored = stored(JobConfigurationCodec.encode(defaults()));

        assertThat(stored.stringPropertyNames())
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(JobSetting.values())
                        .filter(JobSetting::isStored)
                        .map(JobSetting::key)
                        .collect(Collectors.toSet()));
    }

    @Test
    void theCodecReadsAConfigurationWithOnlyACronAsTheDefaults() {
        JobConfiguration decoded = JobConfigurationCodec.decode(JOB, ("cron=" + CRON).getBytes(UTF_8));

        assertThat(decoded).isEqualTo(defaults());
    }

    @ParameterizedTest
    @EnumSource(JobSetting.class)
    void theCodecReadsAMissingKeyAsItsSettingsDefault(JobSetting setting) throws IOException {
        if (!setting.isStored()) {
            return;
        }
        JobConfiguration everyValueChanged = JobConfiguration.builder(JOB)
                .cron(CRON)
                .timeZone("America/New_York")
                .shardingTotalCount(3)
                .shardingItemParameters("0=a")
                .jobParameter("p")
                .failover(true)
                .misfire(false)
                .misfirePolicy(MisfirePolicy.ALL)
                .monitorExecution(false)
                .strategy("sticky")
                .description("d")
                .disabled(true)
                .retries(2)
                .retryBackoff(Duration.ofSeconds(1))
                .timeout(Duration.ofSeconds(2))
                .build();
        Properties stored = stored(JobConfigurationCodec.encode(everyValueChanged));
        stored.remove(setting.key());
        StringWriter text = new StringWriter();
        stored.store(text, null);

        JobConfiguration decoded =
                JobConfigurationCodec.decode(JOB, text.toString().getBytes(UTF_8));

        JobSettings coordinator = JobCoordinator.builder(NEVER_STARTED, decoded).settings();
        assertThat(setting.defaultValue()).contains(valueOf(setting, decoded, coordinator));
    }

    @Test
    void keysAreUniqueCamelCaseNames() {
        List<String> keys =
                Arrays.stream(JobSetting.values()).map(JobSetting::key).toList();

        assertThat(keys).doesNotHaveDuplicates().allMatch(key -> key.matches("[a-z][A-Za-z]*"));
    }

    @ParameterizedTest
    @EnumSource(JobSetting.class)
    void everySettingIsDescribedInOneSentence(JobSetting setting) {
        assertThat(setting.description())
                .matches("[A-Z][^\\n]*\\.")
                .doesNotContain(". ")
                .hasSizeLessThanOrEqualTo(120);
    }

    @Test
    void theStrategyDefaultsToABuiltInStrategyAndItsDescriptionNamesEveryBuiltIn() {
        Set<String> builtIns = ShardingStrategies.builtIns().names();

        assertThat(builtIns).contains(JobSetting.Defaults.STRATEGY);
        assertThat(JobSetting.STRATEGY.description()).contains(builtIns);
    }

    @Test
    void theMisfirePolicyDescriptionNamesEveryPolicy() {
        assertThat(JobSetting.MISFIRE_POLICY.description())
                .contains(Arrays.stream(MisfirePolicy.values())
                        .map(policy -> policy.name().toLowerCase(Locale.ROOT))
                        .toList());
    }
}
