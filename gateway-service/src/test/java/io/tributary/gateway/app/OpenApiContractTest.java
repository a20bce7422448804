package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract {@code openapi/tributary-v1.yaml} and what the running gateway publishes at {@code
 * /v3/api-docs} (springdoc, from the controllers) agree: the same paths and methods, the same
 * parameters (name, place, required), and component schemas with the same properties. What the
 * contract describes and the gateway does not serve yet is listed, by name, in {@link
 * #NOT_IMPLEMENTED_YET}; anything else missing on either side fails.
 */
class OpenApiContractTest extends GatewayIntegrationTest {

    /** Operations the contract describes that this gateway does not serve yet (method and path). */
    static final Set<String> NOT_IMPLEMENTED_YET = Set.of();

    /** Contract schemas only the operations in {@link #NOT_IMPLEMENTED_YET} use. */
    static final Set<String> SCHEMAS_NOT_IMPLEMENTED_YET = Set.of();

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    JsonNode contract;
    JsonNode served;

    @BeforeEach
    void load() throws IOException {
        contract = new YAMLMapper().readTree(Files.readString(contractFile()));
        served = new ObjectMapper().readTree(http.get("/v3/api-docs").body());
    }

    @Test
    void contractIsOpenApi31() {
        assertThat(contract.path("openapi").asText()).isEqualTo("3.1.0");
        assertThat(served.path("openapi").asText()).startsWith("3.1");
    }

    @Test
    void everyContractOperationIsServedExceptTheNamedOnes() {
        Set<String> missing = new TreeSet<>(operations(contract).keySet());
        missing.removeAll(operations(served).keySet());

        assertThat(missing)
                .as("operations in openapi/tributary-v1.yaml the gateway does not serve")
                .containsExactlyInAnyOrderElementsOf(NOT_IMPLEMENTED_YET);
    }

    @Test
    void everyServedOperationIsInTheContract() {
        Set<String> extra = new TreeSet<>(operations(served).keySet());
        extra.removeAll(operations(contract).keySet());

        assertThat(extra)
                .as("operations the gateway serves that the contract does not describe")
                .isEmpty();
    }

    @Test
    void parametersAgree() {
        Map<String, Set<String>> inContract = new TreeMap<>();
        Map<String, Set<String>> inServed = new TreeMap<>();
        operations(served).forEach((op, node) -> {
            JsonNode c = operations(contract).get(op);
            if (c != null) {
                inContract.put(op, parameters(contract, op));
                inServed.put(op, parameters(served, op));
            }
        });

        assertThat(inServed).isNotEmpty().isEqualTo(inContract);
    }

    @Test
    void schemasAgreeOnTheirPropertiesAndWhichAreRequired() {
        Map<String, Set<String>> contractSchemas = schemaProperties(contract);
        Map<String, Set<String>> servedSchemas = schemaProperties(served);
        contractSchemas.keySet().removeAll(SCHEMAS_NOT_IMPLEMENTED_YET);

        assertThat(servedSchemas).isEqualTo(contractSchemas);
    }

    @Test
    void theNotYetImplementedListNamesOnlyContractOperations() {
        assertThat(operations(contract).keySet()).containsAll(NOT_IMPLEMENTED_YET);
        Set<String> servedAndListed = new TreeSet<>(operations(served).keySet());
        servedAndListed.retainAll(NOT_IMPLEMENTED_YET);
        assertThat(servedAndListed).as("served, yet listed as not implemented").isEmpty();
    }

    @Test
    void aParameterMissingOnOneSideWouldBeCaught() {
        String fetch = "GET /v1/topics/{topic}/partitions/{partition}/records";
        JsonNode drifted = contract.deepCopy();
        var params = (com.fasterxml.jackson.databind.node.ArrayNode) drifted.path("paths")
                .path("/v1/topics/{topic}/partitions/{partition}/records")
                .path("get")
                .path("parameters");
        params.remove(params.size() - 1);

        assertThat(parameters(drifted, fetch)).isNotEqualTo(parameters(served, fetch));
        assertThat(parameters(contract, fetch)).isEqualTo(parameters(served, fetch));
    }

    /** "METHOD /path" -> operation, for the API's paths (not springdoc's or actuator's). */
    private static Map<String, JsonNode> operations(JsonNode doc) {
        Map<String, JsonNode> ops = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            if (!path.getKey().startsWith("/v1/")) {
                continue;
            }
            path.getValue().fields().forEachRemaining(m -> {
                if (METHODS.contains(m.getKey())) {
                    ops.put(m.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey(), m.getValue());
                }
            });
        }
        return ops;
    }

    /** "in name required|optional" of an operation's parameters, path-level ones included, refs resolved. */
    private static Set<String> parameters(JsonNode doc, String operation) {
        String path = operation.substring(operation.indexOf(' ') + 1);
        JsonNode pathItem = doc.path("paths").path(path);
        Set<String> params = new TreeSet<>();
        for (JsonNode list : new JsonNode[] {
            pathItem.path("parameters"), operations(doc).get(operation).path("parameters")
        }) {
            for (JsonNode p : list) {
                JsonNode resolved = resolve(doc, p);
                params.add(resolved.path("in").asText() + " "
                        + resolved.path("name").asText() + " "
                        + (resolved.path("required").asBoolean(false) ? "required" : "optional"));
            }
        }
        return params;
    }

    private static JsonNode resolve(JsonNode doc, JsonNode node) {
        if (!node.has("$ref")) {
            return node;
        }
        JsonNode target = doc;
        for (String part : node.get("$ref").asText().substring(2).split("/")) {
            target = target.path(part);
        }
        return target;
    }

    private static Map<String, Set<String>> schemaProperties(JsonNode doc) {
        Map<String, Set<String>> schemas = new TreeMap<>();
        doc.path("components").path("schemas").fields().forEachRemaining(s -> {
            Set<String> required = new TreeSet<>();
            s.getValue().path("required").forEach(r -> required.add(r.asText()));
            Set<String> props = new TreeSet<>();
            s.getValue()
                    .path("properties")
                    .fieldNames()
                    .forEachRemaining(p -> props.add(required.contains(p) ? p + " (required)" : p));
            schemas.put(s.getKey(), props);
        });
        return schemas;
    }

    static Path contractFile() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("openapi/tributary-v1.yaml");
            if (Files.exists(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(
                "openapi/tributary-v1.yaml not found above " + Path.of("").toAbsolutePath());
    }
}
