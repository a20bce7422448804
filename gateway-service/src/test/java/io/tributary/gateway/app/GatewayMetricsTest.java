package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.ServiceHttp;
import io.tributary.gateway.consume.EventStreamController;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import io.tributary.gateway.testing.SseClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Records produced and consumed per topic and problems per type show up in the Prometheus exposition. */
class GatewayMetricsTest extends GatewayIntegrationTest {

    @Test
    void producedConsumedAndErrorsAreCountedByTopicAndType() {
        String topic = createTopic("metrics", 1);
        http.post(
                "/v1/topics/" + topic + "/records", "application/json", "{\"records\":[{\"value\":1},{\"value\":2}]}");
        http.get("/v1/topics/" + topic + "/partitions/0/records?offset=0");
        http.get("/v1/topics/" + topic + "/partitions/0/records?offset=-3");

        String exposition = new ServiceHttp(httpPort).prometheus();

        assertThat(exposition)
                .containsPattern("tributary_gateway_produced_records_total\\{[^}]*acks=\"all\"[^}]*topic=\"" + topic
                        + "\"[^}]*} 2\\.0")
                .containsPattern("tributary_gateway_consumed_records_total\\{[^}]*topic=\"" + topic
                        + "\"[^}]*via=\"fetch\"[^}]*} 2\\.0")
                .containsPattern("tributary_gateway_errors_total\\{[^}]*status=\"400\"[^}]*type=\"invalid-parameter\"");
    }

    @Autowired
    EventStreamController streams;

    @Test
    void groupStreamMetricsAreExposed() throws Exception {
        String topic = createTopic("metrics-group", 1);
        try (SseClient client =
                SseClient.open(httpPort, "/v1/groups/" + uniqueTopic("metrics-group") + "/events?topics=" + topic)) {
            assertThat(client.status()).isEqualTo(200);
            assertThat(client.next()).get().extracting(SseClient.Event::name).isEqualTo("assigned");
            assertThat(new ServiceHttp(httpPort).prometheus())
                    .containsPattern("(?m)^tributary_gateway_group_streams\\{[^}]*} 1\\.0")
                    .containsPattern("tributary_gateway_group_rebalance_partitions_total\\{[^}]*event=\"assigned\"")
                    .containsPattern("tributary_gateway_group_commits_total\\{[^}]*kind=\"auto\"");
        }
    }

    @Test
    void sseMetricsHaveTheNamesAndLabelsTheAlertsUse() throws Exception {
        String topic = createTopic("metrics-sse", 1);
        try (SseClient client = SseClient.open(httpPort, "/v1/topics/" + topic + "/events")) {
            assertThat(client.status()).isEqualTo(200);
            streams.closeAllStreams();
            assertThat(client.next()).isEmpty();
        }
        String exposition = new ServiceHttp(httpPort).prometheus();
        assertThat(exposition)
                .containsPattern("tributary_sse_streams_closed_total\\{[^}]*reason=\"shutdown\"[^}]*topic=\"" + topic
                        + "\"[^}]*} 1\\.0")
                .containsPattern("(?m)^tributary_sse_shared_readers\\{")
                .containsPattern("(?m)^tributary_sse_shared_streams\\{")
                .containsPattern("tributary_sse_upstream_fetches_total\\{[^}]*mode=\"own\"");

        // every gateway SSE metric the shipped alerts and dashboard name is one the gateway exposes,
        // with the labels they select on
        Path alerts = Path.of("..", "helm", "tributary", "files", "alerts.yml");
        Matcher m = Pattern.compile("(tributary_sse_[a-z_]+)\\{([^}]*)}").matcher(Files.readString(alerts));
        int found = 0;
        while (m.find()) {
            found++;
            assertThat(exposition).as("alert metric %s", m.group(1)).contains(m.group(1) + "{");
            for (String label : Pattern.compile("([a-z_]+)=")
                    .matcher(m.group(2))
                    .results()
                    .map(r -> r.group(1))
                    .toList()) {
                if (!label.equals("job") && !label.equals("instance")) {
                    assertThat(exposition)
                            .as("label %s of %s", label, m.group(1))
                            .containsPattern(m.group(1) + "\\{[^}]*" + label + "=");
                }
            }
        }
        assertThat(found).as("the alerts name an SSE metric").isPositive();
    }
}
