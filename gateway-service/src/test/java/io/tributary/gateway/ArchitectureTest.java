package io.tributary.gateway;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tributary.common.testing.ArchitectureRules;

/**
 * The gateway's stream cursors are plain Java: the controllers that write the streams live in
 * {@code io.tributary.gateway.app}. The rule must have subjects (at least the {@code package-info}).
 */
@AnalyzeClasses(packages = "io.tributary.gateway", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule sseIsSpringFree = ArchitectureRules.springFree("io.tributary.gateway.sse..");
}
