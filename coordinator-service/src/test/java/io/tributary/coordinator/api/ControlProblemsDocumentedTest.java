package io.tributary.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.coordinator.metadata.MetadataException;
import io.tributary.coordinator.metadata.MetadataException.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The problem types clients branch on are the ones the reference lists, and every metadata error has one. */
class ControlProblemsDocumentedTest {

    @Test
    void everyProblemTypeIsARowOfTheReferenceWithItsStatus() throws IOException {
        String reference = Files.readString(Path.of("../docs/control-plane.md"));
        for (ControlProblem type : ControlProblem.values()) {
            assertThat(reference)
                    .as("docs/control-plane.md row for %s", type.slug())
                    .contains("| `" + type.slug() + "` | " + type.status() + " |");
        }
    }

    @Test
    void everyMetadataErrorCodeMapsToItsOwnProblemType() {
        Set<ControlProblem> mapped = Arrays.stream(ErrorCode.values())
                .map(code -> ControlProblem.of(MetadataException.of(code, "x")))
                .collect(Collectors.toSet());
        assertThat(mapped).hasSize(ErrorCode.values().length);
        assertThat(mapped).allSatisfy(type -> assertThat(type.status()).isBetween(400, 499));
    }
}
