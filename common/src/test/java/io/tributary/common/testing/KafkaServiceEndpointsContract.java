package io.tributary.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.tributary.common.app.KafkaListenerLifecycle;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A service with a Kafka listener (broker, coordinator) as operators see it over HTTP: probes,
 * build information and a Prometheus exposition that Prometheus' own checker accepts. A subclass
 * is a {@code @SpringBootTest} on a random HTTP port with the Kafka port (and any other port) set
 * to 0 and its data under {@code target/}.
 */
public abstract class KafkaServiceEndpointsContract {

    private final String service;

    /** @param service the {@code service} tag and artifact suffix: {@code broker}, {@code coordinator} */
    protected KafkaServiceEndpointsContract(String service) {
        this.service = service;
    }

    @LocalServerPort
    int httpPort;

    @Autowired
    KafkaListenerLifecycle kafkaListener;

    ServiceHttp http;

    @BeforeEach
    void connect() {
        http = new ServiceHttp(httpPort);
    }

    @Test
    void prometheusExpositionPassesPromtool() throws Exception {
        Promtool.assertAcceptable(expositionAfterAKafkaRequest());
    }

    @Test
    void prometheusExpositionIncludesTheKafkaListenersMeters() throws Exception {
        assertThat(expositionAfterAKafkaRequest())
                .contains("tributary_protocol_connections_active{")
                .contains("tributary_protocol_frames_rejected_total{")
                .contains("tributary_protocol_requests_total{api=\"ApiVersions\"")
                .contains("tributary_protocol_request_latency_seconds_bucket{api=\"ApiVersions\"");
    }

    @Test
    void everyPrometheusSampleCarriesTheServiceAndInstanceLabels() throws Exception {
        var samples = PrometheusSamples.sampleLines(expositionAfterAKafkaRequest());

        assertThat(samples)
                .isNotEmpty()
                .allSatisfy(sample -> assertThat(sample)
                        .contains("service=\"" + service + "\"")
                        .contains("instance=\"" + service + "-0\""));
    }

    @Test
    void livenessIsUp() {
        assertThat(JsonPath.<String>read(http.getJson("/actuator/health/liveness"), "$.status"))
                .isEqualTo("UP");
    }

    @Test
    void readinessIsUpAndIncludesTheKafkaListener() {
        String readiness = http.getJson("/actuator/health/readiness");

        assertThat(JsonPath.<String>read(readiness, "$.status")).isEqualTo("UP");
        assertThat(JsonPath.<String>read(readiness, "$.components.kafkaListener.status"))
                .isEqualTo("UP");
        assertThat(JsonPath.<Integer>read(readiness, "$.components.kafkaListener.details.port"))
                .isEqualTo(kafkaListener.server().port());
    }

    @Test
    void infoHasBuildAndGitEntries() {
        String info = http.getJson("/actuator/info");

        assertThat(JsonPath.<Map<String, Object>>read(info, "$.build"))
                .containsEntry("artifact", "tributary-" + service)
                .containsKey("version");
        assertThat(JsonPath.<Map<String, Object>>read(info, "$.git")).containsKeys("branch", "commit");
    }

    /**
     * The exposition after one ApiVersions request to the Kafka listener, so that the per-API
     * request, error and latency meters exist and are checked too. The listener records a request
     * just after writing its response, hence the wait.
     */
    private String expositionAfterAKafkaRequest() throws Exception {
        try (var connection = KafkaTestConnection.open(kafkaListener.server().port())) {
            assertThat(Errors.forCode(connection.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
        }
        return await().pollDelay(Duration.ZERO)
                .atMost(Duration.ofSeconds(30))
                .until(
                        http::prometheus,
                        exposition -> exposition.contains(
                                "tributary_protocol_request_latency_seconds_count{api=\"ApiVersions\""));
    }
}
