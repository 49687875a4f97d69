package io.shardingjob.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The arrows of the core point one way: the facade ({@link JobCoordinator}) uses the internal packages, the internal
 * packages use the public API, and neither the API nor the internals point back.
 */
@AnalyzeClasses(packages = "io.shardingjob.core", importOptions = ImportOption.DoNotIncludeTests.class)
class CorePackagesTest {

    @ArchTest
    static final ArchRule internalCodeNeverDependsOnTheFacade = noClasses()
            .that()
            .resideInAPackage("io.shardingjob.core.internal..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.shardingjob.core")
            .because("JobCoordinator delegates to the internal runtime, never the other way round");

    @ArchTest
    static final ArchRule thePublicApiNeverDependsOnInternalCode = noClasses()
            .that()
            .resideInAnyPackage(
                    "io.shardingjob.core.config..",
                    "io.shardingjob.core.execution..",
                    "io.shardingjob.core.sharding..",
                    "io.shardingjob.core.registry..",
                    "io.shardingjob.core.instance..",
                    "io.shardingjob.core.operation..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.shardingjob.core.internal..")
            .because("users of the API must not need internal types");

    @ArchTest
    static final ArchRule internalConcernsAreFreeOfCycles =
            slices().matching("io.shardingjob.core.internal.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule corePackagesAreFreeOfCycles =
            slices().matching("io.shardingjob.core.(*)..").should().beFreeOfCycles();
}
