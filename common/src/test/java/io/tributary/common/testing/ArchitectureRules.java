package io.tributary.common.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;

/**
 * Architecture rules every module applies to itself: the core of each service is plain Java.
 *
 * <p>Each rule must have subjects: one whose packages match no imported class fails instead of
 * passing, so a renamed or mistyped package cannot turn a rule off silently.
 */
public final class ArchitectureRules {

    private ArchitectureRules() {}

    /**
     * No class in {@code packages} (ArchUnit package patterns, such as {@code
     * "io.tributary.broker.log.."}) depends on a class in {@code org.springframework..}.
     */
    public static ArchRule springFree(String... packages) {
        return noClasses()
                .that()
                .resideInAnyPackage(packages)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.springframework..")
                .because("the core is plain Java: Spring stays at the edge (the app packages)")
                .allowEmptyShould(false);
    }
}
