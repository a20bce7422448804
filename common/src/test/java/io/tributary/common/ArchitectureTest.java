package io.tributary.common;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.tributary.common.testing.ArchitectureRules;

/** The Kafka-protocol listener, the topic config rules and the ACL model are plain Java; only {@code io.tributary.common.app} knows Spring. */
@AnalyzeClasses(packages = "io.tributary.common", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule protocolPackageIsSpringFree = ArchitectureRules.springFree("io.tributary.common.protocol..");

    @ArchTest
    static final ArchRule topicPackageIsSpringFree = ArchitectureRules.springFree("io.tributary.common.topic..");

    @ArchTest
    static final ArchRule securityPackageIsSpringFree = ArchitectureRules.springFree("io.tributary.common.security..");
}
