package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import io.tributary.common.testing.PrometheusSamples;
import io.tributary.common.testing.Promtool;
import io.tributary.common.testing.ServiceHttp;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The gateway as operators and API users see it over HTTP: probes, build information, a Prometheus
 * exposition that Prometheus' own checker accepts, and the published OpenAPI contract.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class GatewayEndpointsTest {

    @LocalServerPort
    int httpPort;

    ServiceHttp http;

    @BeforeEach
    void connect() {
        http = new ServiceHttp(httpPort);
    }

    @Test
    void prometheusExpositionPassesPromtool() {
        Promtool.assertAcceptable(http.prometheus());
    }

    @Test
    void everyPrometheusSampleCarriesTheServiceAndInstanceLabels() {
        var samples = PrometheusSamples.sampleLines(http.prometheus());

        assertThat(samples)
                .isNotEmpty()
                .allSatisfy(sample ->
                        assertThat(sample).contains("service=\"gateway\"").contains("instance=\"gateway-0\""));
    }

    @Test
    void livenessIsUp() {
        assertThat(JsonPath.<String>read(http.getJson("/actuator/health/liveness"), "$.status"))
                .isEqualTo("UP");
    }

    @Test
    void readinessIsUp() {
        assertThat(JsonPath.<String>read(http.getJson("/actuator/health/readiness"), "$.status"))
                .isEqualTo("UP");
    }

    @Test
    void infoHasBuildAndGitEntries() {
        String info = http.getJson("/actuator/info");

        assertThat(JsonPath.<Map<String, Object>>read(info, "$.build"))
                .containsEntry("artifact", "tributary-gateway")
                .containsKey("version");
        assertThat(JsonPath.<Map<String, Object>>read(info, "$.git")).containsKeys("branch", "commit");
    }

    @Test
    void openApiDocumentIsPublishedWithTheApisTitle() {
        String document = http.getJson("/v3/api-docs");

        assertThat(JsonPath.<String>read(document, "$.openapi")).startsWith("3.");
        assertThat(JsonPath.<String>read(document, "$.info.title")).isEqualTo("Tributary HTTP API");
    }

    @Test
    void swaggerUiPathLeadsToTheUi() {
        HttpResponse<String> response = http.get("/swagger-ui.html", "text/html");
        if (response.statusCode() / 100 == 3) {
            String location = response.headers().firstValue("Location").orElseThrow();
            assertThat(location).contains("/swagger-ui/");
            String path = URI.create(location).getRawPath();
            response = http.get(path, "text/html");
        }

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("Swagger UI");
    }
}
