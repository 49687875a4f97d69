package io.shardingjob.core;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The scheduling of a job is laid out by stage, and the folder shows the flow: {@code job} (what every stage reads and
 * remembers) under {@code fire} (a fire's items from the trigger to the recorded end), under {@code audit} (what was
 * left undone, made up or taken over), under {@code session} (registry, connection and lifecycle reactions), all wired
 * by the runtime package above them. A stage knows the job through narrow interfaces, never through the runtime.
 */
@AnalyzeClasses(
        packages = "io.shardingjob.core.internal.scheduling",
        importOptions = ImportOption.DoNotIncludeTests.class)
class SchedulingStagesTest {

    private static final String SCHEDULING = "io.shardingjob.core.internal.scheduling";

    @ArchTest
    static final ArchRule theStagesAreFreeOfCycles =
            slices().matching(SCHEDULING + ".(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule noStageDependsOnTheRuntimeThatWiresIt = noClasses()
            .that()
            .resideInAnyPackage(
                    SCHEDULING + ".job..", SCHEDULING + ".fire..", SCHEDULING + ".audit..", SCHEDULING + ".session..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage(SCHEDULING)
            .because("a stage reads the job through JobView and asks for audits through AuditDemand");

    @ArchTest
    static final ArchRule whatTheStagesShareDependsOnNoStage = noClasses()
            .that()
            .resideInAPackage(SCHEDULING + ".job..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SCHEDULING + ".fire..", SCHEDULING + ".audit..", SCHEDULING + ".session..");

    @ArchTest
    static final ArchRule aFireNeverCallsItsAuditOrItsSession = noClasses()
            .that()
            .resideInAPackage(SCHEDULING + ".fire..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SCHEDULING + ".audit..", SCHEDULING + ".session..")
            .because(
                    "a fire asks for an audit through AuditDemand: the audit runs fires' work, not the other way round");

    @ArchTest
    static final ArchRule theAuditNeverReactsToTheSession = noClasses()
            .that()
            .resideInAPackage(SCHEDULING + ".audit..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage(SCHEDULING + ".session..");

    @ArchTest
    static final ArchRule noPartKnowsTheRuntimeOrTheWiringThatBuiltIt = noClasses()
            .that()
            .resideInAPackage(SCHEDULING + "..")
            .and()
            .doNotHaveSimpleName("JobRuntime")
            .and()
            .doNotHaveSimpleName("JobWiring")
            .should()
            .dependOnClassesThat()
            .haveSimpleName("JobRuntime")
            .orShould()
            .dependOnClassesThat()
            .haveSimpleName("JobWiring")
            .because("a part gets the parts it uses from the wiring, not a way back to what built it");

    @ArchTest
    static final ArchRule onlyTheRunWritesWhatTheMemoryKeepsOfItsLife = noClasses()
            .that()
            .doNotHaveSimpleName("ItemRun")
            .should()
            .callMethodWhere(target(owner(simpleName("RunMemory")))
                    .and(target(nameMatching(
                            "attach|entering|endingLastOfItsFire|startUnanswered|released|notClaimedWhole"))))
            .because("a run's transitions are the only writers of what this instance remembers of the run's life");
}
