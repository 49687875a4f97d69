package io.shardingjob.boot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The starter is a user of the core like any other: it sees the public API only. */
@AnalyzeClasses(packages = "io.shardingjob.boot", importOptions = ImportOption.DoNotIncludeTests.class)
class StarterUsesOnlyTheCorePublicApiTest {

    @ArchTest
    static final ArchRule theStarterNeverDependsOnCoreInternals = noClasses()
            .that()
            .resideInAPackage("io.shardingjob.boot..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.shardingjob.core.internal..")
            .because("the core's internal packages are not API and may change in any release");
}
