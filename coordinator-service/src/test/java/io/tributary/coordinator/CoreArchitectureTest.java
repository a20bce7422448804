package io.tributary.coordinator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Beyond {@link ArchitectureTest}'s Spring-free rules: the core never reaches into the Spring edge,
 * and stays deterministic (no wall clock, no unseeded randomness, no sleeping).
 */
@AnalyzeClasses(packages = "io.tributary.coordinator", importOptions = ImportOption.DoNotIncludeTests.class)
class CoreArchitectureTest {

    private static final String[] CORE = {
        "io.tributary.coordinator.metadata..",
        "io.tributary.coordinator.placement..",
        "io.tributary.coordinator.liveness..",
        "io.tributary.coordinator.group..",
        "io.tributary.coordinator.lag..",
        "io.tributary.coordinator.security..",
        "io.tributary.coordinator.transaction.."
    };

    @ArchTest
    static final ArchRule coreDoesNotDependOnTheEdge = noClasses()
            .that()
            .resideInAnyPackage(CORE)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.tributary.coordinator.app..")
            .because("the edge wires the core, never the other way round");

    @ArchTest
    static final ArchRule coreReadsNoWallClockAndNoUnseededRandomness = noClasses()
            .that()
            .resideInAnyPackage(CORE)
            .should()
            .callMethod(System.class, "currentTimeMillis")
            .orShould()
            .callConstructor(java.util.Random.class)
            .orShould()
            .callMethod(Thread.class, "sleep", long.class)
            .because("the core gets its clock through an InstantSource and stays deterministic");
}
