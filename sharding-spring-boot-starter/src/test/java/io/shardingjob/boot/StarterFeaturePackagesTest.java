package io.shardingjob.boot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The starter laid out as Spring Boot lays out its own modules: each feature in a package named for it, and the
 * auto-configurations that set them up from properties in {@code autoconfigure}, which the features never see.
 */
@AnalyzeClasses(packages = "io.shardingjob.boot", importOptions = ImportOption.DoNotIncludeTests.class)
class StarterFeaturePackagesTest {

    @ArchTest
    static final ArchRule featuresNeverDependOnTheirAutoConfiguration = noClasses()
            .that()
            .resideInAnyPackage(
                    "io.shardingjob.boot.actuate..",
                    "io.shardingjob.boot.alerts..",
                    "io.shardingjob.boot.console..",
                    "io.shardingjob.boot.executionlog..",
                    "io.shardingjob.boot.jobs..",
                    "io.shardingjob.boot.observation..",
                    "io.shardingjob.boot.operations..",
                    "io.shardingjob.boot.zookeeper..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.shardingjob.boot.autoconfigure..")
            .because("a feature works without its auto-configuration (a test, an application that wires it itself);"
                    + " only service connections implement autoconfigure's ZooKeeperConnectionDetails");

    @ArchTest
    static final ArchRule theStartersPackagesAreFreeOfCycles =
            slices().matching("io.shardingjob.boot.(*)..").should().beFreeOfCycles();
}
