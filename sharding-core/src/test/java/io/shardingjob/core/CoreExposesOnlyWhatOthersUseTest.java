package io.shardingjob.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The core shows what its users need and no more: the public API is exactly the types listed here, so that adding one
 * is a deliberate act, and a class of an internal package is public only when code of another package uses it.
 */
@AnalyzeClasses(packages = "io.shardingjob.core", importOptions = ImportOption.DoNotIncludeTests.class)
class CoreExposesOnlyWhatOthersUseTest {

    /**
     * The public API: the configuration, the context a job receives and what it reports, the listener and strategy
     * SPIs, the registry client and the runtime handles for operations.
     */
    private static final Set<String> PUBLIC_API = Set.of(
            "io.shardingjob.core.JobCoordinator",
            // JobCoordinator's builder, no longer nested in it: the same type a user always had, not one more.
            "io.shardingjob.core.JobCoordinatorBuilder",
            "io.shardingjob.core.JobDefinitions",
            "io.shardingjob.core.LedgerView",
            "io.shardingjob.core.ShardedJobs",
            "io.shardingjob.core.StoredJobs",
            // What a job costs ZooKeeper against its limits, for operators' meters, health and console.
            "io.shardingjob.core.config.CoordinationBudget",
            "io.shardingjob.core.config.FireSchedule",
            "io.shardingjob.core.config.FollowOn",
            "io.shardingjob.core.config.ItemParameters",
            "io.shardingjob.core.config.JobConfiguration",
            "io.shardingjob.core.config.JobConfigurationException",
            "io.shardingjob.core.config.JobSetting",
            "io.shardingjob.core.config.MisfirePolicy",
            "io.shardingjob.core.execution.ClaimState",
            "io.shardingjob.core.execution.ExecutionListener",
            "io.shardingjob.core.execution.ExecutionSource",
            "io.shardingjob.core.execution.FireCompletion",
            "io.shardingjob.core.execution.FireCompletionListener",
            "io.shardingjob.core.execution.FireListener",
            "io.shardingjob.core.execution.FireReport",
            "io.shardingjob.core.execution.ItemExecutor",
            "io.shardingjob.core.execution.ItemResult",
            "io.shardingjob.core.execution.ItemTimeoutException",
            // What a store throws to refuse a run taken over, and the run a job's code is in, for fenced writes.
            "io.shardingjob.core.execution.FencedOutException",
            "io.shardingjob.core.execution.CurrentRun",
            "io.shardingjob.core.execution.LedgerFire",
            "io.shardingjob.core.execution.ManualFireHandler",
            "io.shardingjob.core.execution.MisfireListener",
            "io.shardingjob.core.execution.ShardingContext",
            "io.shardingjob.core.instance.InstanceId",
            "io.shardingjob.core.operation.InvalidOperationException",
            "io.shardingjob.core.registry.ClockSkew",
            "io.shardingjob.core.registry.InvalidRegistrySettingException",
            "io.shardingjob.core.registry.RegistryCenter",
            "io.shardingjob.core.registry.RegistryConfiguration",
            "io.shardingjob.core.registry.RegistrySasl",
            "io.shardingjob.core.registry.RegistryTls",
            "io.shardingjob.core.registry.RegistryUnavailableException",
            "io.shardingjob.core.registry.TlsStoreFiles",
            "io.shardingjob.core.sharding.Assignment",
            "io.shardingjob.core.sharding.strategy.ShardingRequest",
            "io.shardingjob.core.sharding.strategy.ShardingStrategies",
            "io.shardingjob.core.sharding.strategy.ShardingStrategy");

    private static final String INTERNAL = "io.shardingjob.core.internal";

    @ArchTest
    static void thePublicApiIsExactlyTheListedTypes(JavaClasses core) {
        Stream<String> publicTypes = core.stream()
                .filter(JavaClass::isTopLevelClass)
                .filter(type -> type.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(type -> !type.getPackageName().equals(INTERNAL)
                        && !type.getPackageName().startsWith(INTERNAL + "."))
                .map(JavaClass::getName);

        assertThat(publicTypes)
                .as(
                        "public types outside %s: list a new one in PUBLIC_API, or make it package-private or internal",
                        INTERNAL)
                .containsExactlyInAnyOrderElementsOf(PUBLIC_API);
    }

    @ArchTest
    static final ArchRule internalClassesArePublicOnlyWhenAnotherPackageUsesThem = classes()
            .that()
            .resideInAPackage(INTERNAL + "..")
            .should(bePublicOnlyWhenUsedFromAnotherPackage())
            .because("what only its own package uses is package-private, so that a reader sees the package's surface");

    /**
     * A public top-level class is used by the main code of another package: itself or one of its nested classes. The
     * nested classes are found among all the classes checked, as ArchUnit lists no class's nested classes.
     */
    private static ArchCondition<JavaClass> bePublicOnlyWhenUsedFromAnotherPackage() {
        return new ArchCondition<>("be public only when used from another package") {

            private final Map<JavaClass, List<JavaClass>> withNested = new HashMap<>();

            @Override
            public void init(Collection<JavaClass> allObjectsToTest) {
                allObjectsToTest.forEach(type -> withNested
                        .computeIfAbsent(topLevel(type), top -> new ArrayList<>())
                        .add(type));
            }

            @Override
            public void check(JavaClass type, ConditionEvents events) {
                if (!type.isTopLevelClass() || !type.getModifiers().contains(JavaModifier.PUBLIC)) {
                    return;
                }
                boolean usedElsewhere = withNested.getOrDefault(type, List.of(type)).stream()
                        .flatMap(member -> member.getDirectDependenciesToSelf().stream())
                        .map(Dependency::getOriginClass)
                        .anyMatch(origin -> !origin.getPackageName().equals(type.getPackageName()));
                if (!usedElsewhere) {
                    events.add(SimpleConditionEvent.violated(
                            type, type.getName() + " is public, but only its own package uses it"));
                }
            }
        };
    }

    private static JavaClass topLevel(JavaClass type) {
        JavaClass top = type;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }
}
