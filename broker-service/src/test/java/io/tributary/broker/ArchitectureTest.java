package io.tributary.broker;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tributary.common.testing.ArchitectureRules;

/**
 * The broker's core is plain Java: only {@code io.tributary.broker.app} knows Spring. One rule per
 * core package, so that each must hold classes (at least its {@code package-info}) to pass.
 */
@AnalyzeClasses(packages = "io.tributary.broker", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule logIsSpringFree = ArchitectureRules.springFree("io.tributary.broker.log..");

    @ArchTest
    static final ArchRule replicationIsSpringFree = ArchitectureRules.springFree("io.tributary.broker.replication..");

    @ArchTest
    static final ArchRule clusterIsSpringFree = ArchitectureRules.springFree("io.tributary.broker.cluster..");

    @ArchTest
    static final ArchRule apiIsSpringFree = ArchitectureRules.springFree("io.tributary.broker.api..");

    @ArchTest
    static final ArchRule securityIsSpringFree = ArchitectureRules.springFree("io.tributary.broker.security..");
}
