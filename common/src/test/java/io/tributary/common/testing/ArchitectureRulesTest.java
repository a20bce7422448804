package io.tributary.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.tributary.common.testing.fixture.springy.SpringAwareFixture;
import org.junit.jupiter.api.Test;

/** The Spring-free rule is able to fail: on a class that uses Spring, and on no classes at all. */
class ArchitectureRulesTest {

    private static final String FIXTURES = "io.tributary.common.testing.fixture.springy";

    @Test
    void springFreeRuleFailsOnAClassThatDependsOnSpring() {
        var classes = new ClassFileImporter().importPackages(FIXTURES);
        assertThat(classes.contain(SpringAwareFixture.class)).isTrue();

        assertThatThrownBy(() -> ArchitectureRules.springFree(FIXTURES + "..").check(classes))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(SpringAwareFixture.class.getName())
                .hasMessageContaining("org.springframework.context.ApplicationContext");
    }

    @Test
    void springFreeRuleFailsWhenItsPackagesHoldNoClasses() {
        var classes = new ClassFileImporter().importPackages(FIXTURES);

        assertThatThrownBy(() -> ArchitectureRules.springFree("io.tributary.no.such.package..")
                        .check(classes))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("failed to check any classes");
    }

    @Test
    void springFreeRulePassesOnPlainJava() {
        var classes = new ClassFileImporter().importPackages("io.tributary.common.protocol");

        ArchitectureRules.springFree("io.tributary.common.protocol..").check(classes);
    }
}
