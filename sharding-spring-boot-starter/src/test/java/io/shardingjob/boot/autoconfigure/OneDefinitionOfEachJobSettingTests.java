package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobSetting;
import io.shardingjob.core.registry.RegistryConfiguration;
import io.shardingjob.core.sharding.strategy.ShardingStrategies;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.convert.DurationStyle;

/**
 * The starter's side of the one definition of each job setting ({@link JobSetting}): the {@code @ShardedJob}
 * attributes, the {@code sharding.jobs.<name>.*} properties and the {@code sharding.*} properties that configure every
 * job's coordinator must name the same settings with the same defaults and descriptions. A setting that exists in one
 * place and not another, or a default that differs, fails here.
 *
 * <p>Boot's configuration metadata cannot list the properties of a map's values: {@code sharding.jobs} is one entry of
 * type {@code Map<String, ShardedJobProperties>}, and an IDE derives {@code sharding.jobs.<name>.*} from that class,
 * its fields' Javadoc and its types (the misfire policies from the enum). So the descriptions of those properties are
 * checked in {@code ShardedJobProperties}' source, and the other defaults in the generated metadata.
 */
class OneDefinitionOfEachJobSettingTests {

    private static final Path PROPERTIES_SOURCE =
            Path.of("src/main/java", ShardedJobProperties.class.getName().replace('.', '/') + ".java");

    private static final List<JobSetting> CONFIGURATION = JobSetting.of(JobSetting.Scope.CONFIGURATION);

    /** The coordinator settings the starter exposes: the property, and its value in a default ShardingProperties. */
    private static final Map<JobSetting, Coordination> COORDINATION = Map.of(
            JobSetting.START_TIMEOUT,
            new Coordination(
                    "sharding.coordination.start-timeout",
                    p -> p.getCoordination().getStartTimeout()),
            JobSetting.RECONCILE_INTERVAL,
            new Coordination(
                    "sharding.coordination.reconcile-interval",
                    p -> p.getCoordination().getReconcileInterval()),
            JobSetting.SHARDING_WAIT_TIMEOUT,
            new Coordination(
                    "sharding.coordination.sharding-wait-timeout",
                    p -> p.getCoordination().getShardingWaitTimeout()),
            JobSetting.SHUTDOWN_GRACE_PERIOD,
            new Coordination(
                    "sharding.shutdown.grace-period", p -> p.getShutdown().getGracePeriod()));

    /** The coordinator settings the starter leaves at the core's default, deliberately. */
    private static final Set<JobSetting> COORDINATION_NOT_EXPOSED =
            Set.of(JobSetting.INTERRUPT_ON_CONNECTION_LOSS, JobSetting.CATCH_UP_HORIZON, JobSetting.LEDGER_RETENTION);

    private record Coordination(String property, Function<ShardingProperties, Object> value) {}

    @Test
    void everyAnnotationAttributeButTheNameIsAConfigurationSettingAndEverySettingAnAttribute() {
        Set<String> attributes = Arrays.stream(ShardedJob.class.getDeclaredMethods())
                .map(Method::getName)
                .filter(name -> !name.equals("name"))
                .collect(Collectors.toSet());

        assertThat(attributes).containsExactlyInAnyOrderElementsOf(keys(CONFIGURATION));
    }

    @ParameterizedTest
    @EnumSource(JobSetting.class)
    void theAnnotationsDefaultIsTheCoresDefault(JobSetting setting) throws NoSuchMethodException {
        if (setting.scope() != JobSetting.Scope.CONFIGURATION) {
            return;
        }
        Object declared = ShardedJob.class.getMethod(setting.key()).getDefaultValue();

        switch (setting) {
            // Empty leaves it unset, so the core's default (the system zone of the instance) applies.
            case TIME_ZONE -> assertThat(declared).isEqualTo("");
            // Strings read like properties; empty leaves it unset, so the core's default applies.
            case RETRY_BACKOFF, TIMEOUT -> {
                String text = (String) declared;
                if (!text.isEmpty()) {
                    assertThat(setting.defaultValue()).contains(DurationStyle.detectAndParse(text));
                }
            }
            // An annotation holds an array where the core holds a list.
            case AFTER -> assertThat(setting.defaultValue()).contains(List.of((String[]) declared));
            default -> assertThat(setting.defaultValue()).contains(declared);
        }
    }

    @Test
    void aJobThatSetsNothingButItsCronGetsTheCoresDefaults() throws NoSuchMethodException {
        JobConfigurationResolver resolver = new JobConfigurationResolver(
                new ShardingProperties(), ShardingStrategies.builtIns(), List.of(), text -> text);
        Method method = Jobs.class.getDeclaredMethod("plain");
        ShardedJob annotation = method.getAnnotation(ShardedJob.class);

        JobConfiguration resolved =
                resolver.resolve(ShardedJobMethod.of("plain", "jobs", new Jobs(), method, annotation));

        assertThat(resolved)
                .isEqualTo(JobConfiguration.builder("plain").cron("0 0 * * * *").build());
    }

    @Test
    void everyPropertyUnderShardingJobsIsAConfigurationSettingAndEverySettingAProperty() {
        Set<String> properties = Arrays.stream(ShardedJobProperties.class.getDeclaredFields())
                .filter(field -> !Modifier.isStatic(field.getModifiers()))
                .map(Field::getName)
                .collect(Collectors.toSet());

        assertThat(properties).containsExactlyInAnyOrderElementsOf(keys(CONFIGURATION));
    }

    @Test
    void everyPropertyUnderShardingJobsIsDescribedInTheWordsOfItsSetting() throws IOException {
        Map<String, String> javadoc = fieldJavadoc(Files.readString(PROPERTIES_SOURCE));

        Map<String, String> expected = new LinkedHashMap<>();
        CONFIGURATION.forEach(setting -> expected.put(setting.key(), setting.description()));
        assertThat(javadoc).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    void theMetadataDescribesShardingJobsAsAMapOfTheJobProperties() throws Exception {
        Map<String, Object> jobs = metadataProperty("sharding.jobs");

        assertThat(jobs.get("type"))
                .isEqualTo("java.util.Map<java.lang.String," + ShardedJobProperties.class.getName() + ">");
        assertThat(metadataProperties())
                .as("Boot's metadata has no entries for the properties of a map's values")
                .noneMatch(property -> String.valueOf(property.get("name")).startsWith("sharding.jobs."));
    }

    @Test
    void everyCoordinatorSettingIsEitherAPropertyOrLeftToTheCoreOnPurpose() {
        assertThat(JobSetting.of(JobSetting.Scope.COORDINATOR))
                .allMatch(setting -> COORDINATION.containsKey(setting) ^ COORDINATION_NOT_EXPOSED.contains(setting));
    }

    @ParameterizedTest
    @MethodSource("exposedCoordinatorSettings")
    void aCoordinationPropertyDefaultsToTheCoresDefaultAndSaysWhatTheCoreSays(JobSetting setting) throws Exception {
        Coordination coordination = COORDINATION.get(setting);
        Map<String, Object> metadata = metadataProperty(coordination.property());

        assertThat(setting.defaultValue())
                .as("the default of %s in ShardingProperties", coordination.property())
                .contains(coordination.value().apply(new ShardingProperties()));
        assertThat(setting.defaultValue())
                .as("the default of %s in the metadata", coordination.property())
                .contains(DurationStyle.detectAndParse(String.valueOf(metadata.get("defaultValue"))));
        assertThat(String.valueOf(metadata.get("description")))
                .startsWith(
                        setting.description().substring(0, setting.description().length() - 1));
    }

    @Test
    void theZooKeeperPropertiesDefaultToTheCoresRegistryConfiguration() throws Exception {
        RegistryConfiguration core = RegistryConfiguration.of("localhost:2181", "jobs");
        ZooKeeperProperties starter = new ShardingProperties().getZookeeper();
        Map<String, Object> defaults = Map.of(
                "sharding.zookeeper.session-timeout", core.sessionTimeout(),
                "sharding.zookeeper.connection-timeout", core.connectionTimeout(),
                "sharding.zookeeper.base-sleep-time", core.retry().baseSleepTime(),
                "sharding.zookeeper.max-sleep-time", core.retry().maxSleepTime());

        assertThat(starter.getSessionTimeout()).isEqualTo(core.sessionTimeout());
        assertThat(starter.getConnectionTimeout()).isEqualTo(core.connectionTimeout());
        assertThat(starter.getBaseSleepTime()).isEqualTo(core.retry().baseSleepTime());
        assertThat(starter.getMaxSleepTime()).isEqualTo(core.retry().maxSleepTime());
        assertThat(starter.getMaxRetries()).isEqualTo(core.retry().maxRetries());
        for (Map.Entry<String, Object> entry : defaults.entrySet()) {
            assertThat(DurationStyle.detectAndParse(
                            String.valueOf(metadataProperty(entry.getKey()).get("defaultValue"))))
                    .as(entry.getKey())
                    .isEqualTo(entry.getValue());
        }
        assertThat(metadataProperty("sharding.zookeeper.max-retries").get("defaultValue"))
                .isEqualTo(core.retry().maxRetries());
    }

    static Stream<JobSetting> exposedCoordinatorSettings() {
        return COORDINATION.keySet().stream();
    }

    private static Set<String> keys(List<JobSetting> settings) {
        return settings.stream().map(JobSetting::key).collect(Collectors.toSet());
    }

    /** Each field's Javadoc as one line, the way the configuration processor reads it. */
    static Map<String, String> fieldJavadoc(String source) {
        Pattern field = Pattern.compile(
                "/\\*\\*((?:(?!\\*/).)*)\\*/\\s*private\\s+(?:@Nullable\\s+)?[\\w.<>, ]+?\\s+(\\w+)\\s*(?:=[^;]*)?;",
                Pattern.DOTALL);
        Map<String, String> javadoc = new LinkedHashMap<>();
        Matcher matcher = field.matcher(source);
        while (matcher.find()) {
            String text = matcher.group(1)
                    .replaceAll("(?m)^\\s*\\*", " ")
                    .replaceAll("\\s+", " ")
                    .trim();
            javadoc.put(matcher.group(2), text);
        }
        return javadoc;
    }

    private static List<Map<String, Object>> metadataProperties() throws IOException, URISyntaxException {
        Path classes = Path.of(ShardingProperties.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        String json = Files.readString(classes.resolve("META-INF/spring-configuration-metadata.json"));
        return JsonPath.read(json, "$.properties");
    }

    private static Map<String, Object> metadataProperty(String name) throws IOException, URISyntaxException {
        return metadataProperties().stream()
                .filter(property -> name.equals(property.get("name")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metadata for " + name));
    }

    static class Jobs {

        @ShardedJob(name = "plain", cron = "0 0 * * * *")
        void plain() {}
    }
}
