package io.tributary.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The promtool policy the services' exposition tests rely on, on expositions written here. */
class PromtoolTest {

    @Test
    void cleanExpositionPasses() {
        Promtool.assertAcceptable("""
                # HELP tributary_protocol_requests_total Kafka-protocol requests handled
                # TYPE tributary_protocol_requests_total counter
                tributary_protocol_requests_total{api="Metadata",service="broker"} 3.0
                """);
    }

    @Test
    void expositionThatDoesNotParseFails() {
        assertThatThrownBy(() -> Promtool.assertAcceptable("tributary_protocol_requests_total{api=Metadata 3\n"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("could not parse");
    }

    @Test
    void lintProblemInATributaryMetricFails() {
        assertThatThrownBy(() -> Promtool.assertAcceptable("""
                        # HELP tributary_protocol_requests Kafka-protocol requests handled
                        # TYPE tributary_protocol_requests counter
                        tributary_protocol_requests{api="Metadata"} 3.0
                        """))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tributary_protocol_requests");
    }

    @Test
    void lintProblemOnlyInAnotherLibrarysMetricPasses() {
        String exposition = """
                # HELP jvm_threads_started_count Threads started
                # TYPE jvm_threads_started_count counter
                jvm_threads_started_count 12.0
                # HELP tributary_protocol_requests_total Kafka-protocol requests handled
                # TYPE tributary_protocol_requests_total counter
                tributary_protocol_requests_total{api="Metadata"} 3.0
                """;
        assertThat(Promtool.check(exposition).exitCode())
                .as("promtool exit code")
                .isEqualTo(3);

        Promtool.assertAcceptable(exposition);
    }
}
