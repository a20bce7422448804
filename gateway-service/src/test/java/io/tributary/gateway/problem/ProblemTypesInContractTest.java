package io.tributary.gateway.problem;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every problem type the gateway can answer with is listed in the contract with its status, and no other. */
class ProblemTypesInContractTest {

    private static final Pattern ROW = Pattern.compile("\\| `urn:tributary:problem:([a-z-]+)` \\| (\\d{3}) \\|");

    @Test
    void theContractListsExactlyTheProblemTypesWithTheirStatus() throws IOException {
        String table = new YAMLMapper()
                .readTree(Files.readString(contract()))
                .path("components")
                .path("schemas")
                .path("Problem")
                .path("description")
                .asText();
        Set<String> listed = new TreeSet<>();
        for (Matcher m = ROW.matcher(table); m.find(); ) {
            listed.add(m.group(1) + " " + m.group(2));
        }

        Set<String> implemented = Arrays.stream(ProblemType.values())
                .map(t -> t.slug() + " " + t.status())
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(listed).isEqualTo(implemented);
    }

    @Test
    void typeUrisAreStable() {
        assertThat(ProblemType.TOPIC_NOT_FOUND.uri()).hasToString("urn:tributary:problem:topic-not-found");
        assertThat(ProblemType.OFFSET_BELOW_LOG_START.uri())
                .hasToString("urn:tributary:problem:offset-below-log-start");
    }

    private static Path contract() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("openapi/tributary-v1.yaml");
            if (Files.exists(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("openapi/tributary-v1.yaml not found");
    }
}
