package io.tributary.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.ServiceHttp;
import io.tributary.gateway.testing.GatewayIntegrationTest;
import org.junit.jupiter.api.Test;

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
}
