package io.tributary.broker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The storage core is plain Java with injected time: no Spring, no ambient clock, randomness or sleeping. */
class StorageCoreArchitectureTest {

    private static final String LOG = "io.tributary.broker.log..";
    private static JavaClasses mainClasses;
    private static JavaClasses allClasses;

    @BeforeAll
    static void importClasses() {
        mainClasses = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.tributary.broker.log");
        allClasses = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.tributary.broker.log");
    }

    @Test
    void storageCoreDoesNotDependOnSpring() {
        noClasses()
                .that()
                .resideInAPackage(LOG)
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.springframework..")
                .check(mainClasses);
    }

    @Test
    void storageCodeAndTestsTakeTimeAndRandomnessFromOutside() {
        noClasses()
                .that()
                .resideInAPackage(LOG)
                .should()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(Thread.class, "sleep", long.class)
                .orShould()
                .callConstructor(Random.class)
                .check(allClasses);
    }
}
