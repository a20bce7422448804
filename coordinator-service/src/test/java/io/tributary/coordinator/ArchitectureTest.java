package io.tributary.coordinator;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tributary.common.testing.ArchitectureRules;

/**
 * The coordinator's core is plain Java: only {@code io.tributary.coordinator.app} knows Spring. One
 * rule per core package, so that each must hold classes (at least its {@code package-info}) to pass.
 */
@AnalyzeClasses(packages = "io.tributary.coordinator", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule metadataIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.metadata..");

    @ArchTest
    static final ArchRule placementIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.placement..");

    @ArchTest
    static final ArchRule groupIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.group..");

    @ArchTest
    static final ArchRule groupHandlersAreSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.kafka..");

    @ArchTest
    static final ArchRule livenessIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.liveness..");

    @ArchTest
    static final ArchRule securityIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.security..");

    @ArchTest
    static final ArchRule lagIsSpringFree = ArchitectureRules.springFree("io.tributary.coordinator.lag..");
}
