package io.tributary.gateway;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tributary.common.testing.ArchitectureRules;

/**
 * The gateway's core is plain Java: stream cursors ({@code sse}), the record JSON codec ({@code
 * record}), the problem types ({@code problem}), the table scans ({@code table}) and the metrics
 * ({@code metrics}); Spring stays in
 * the controllers and {@code app}. The rule must have subjects (at least the {@code package-info}).
 */
@AnalyzeClasses(packages = "io.tributary.gateway", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule sseIsSpringFree = ArchitectureRules.springFree("io.tributary.gateway.sse..");

    @ArchTest
    static final ArchRule recordJsonIsSpringFree = ArchitectureRules.springFree("io.tributary.gateway.record..");

    @ArchTest
    static final ArchRule problemsAreSpringFree = ArchitectureRules.springFree("io.tributary.gateway.problem..");

    @ArchTest
    static final ArchRule idempotencyIsSpringFree = ArchitectureRules.springFree("io.tributary.gateway.idempotency..");

    @ArchTest
    static final ArchRule tableIsSpringFree = ArchitectureRules.springFree("io.tributary.gateway.table..");

    @ArchTest
    static final ArchRule metricsAreSpringFree = ArchitectureRules.springFree("io.tributary.gateway.metrics..");
}
