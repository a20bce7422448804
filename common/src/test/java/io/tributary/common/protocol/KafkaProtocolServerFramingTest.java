package io.tributary.common.protocol;

import static io.tributary.common.protocol.TestHandlers.count;
import static io.tributary.common.protocol.TestHandlers.eventually;
import static io.tributary.common.protocol.TestHandlers.start;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.common.testing.KafkaTestConnection;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bytes that are not a request close that one connection, are counted by reason in {@code
 * tributary.protocol.frames.rejected}, and leave every other connection working.
 */
class KafkaProtocolServerFramingTest {

    private static final int MAX_FRAME_BYTES = 1024;

    /** What a misbehaving client writes, and the reason the listener should give for closing it. */
    record BadInput(String description, String reason, Writer writer) {

        @Override
        public String toString() {
            return description;
        }
    }

    @FunctionalInterface
    interface Writer {
        void writeTo(KafkaTestConnection connection) throws IOException;
    }

    static Stream<BadInput> badInputs() {
        return Stream.of(
                new BadInput(
                        "a header with unknown API key 9999",
                        "malformed",
                        connection -> connection.writeFrame(headerBytes((short) 9999, (short) 0))),
                new BadInput(
                        "a known API at a version kafka-clients cannot parse (Fetch v999)",
                        "malformed",
                        connection -> connection.writeFrame(headerBytes(ApiKeys.FETCH.id, (short) 999))),
                new BadInput(
                        "a frame of bytes that are no header at all",
                        "malformed",
                        connection -> connection.writeFrame(filled(40, (byte) 0xEE))),
                new BadInput("an empty frame", "malformed", connection -> connection.writeFrame(new byte[0])),
                new BadInput("a valid Metadata header with its body cut short", "malformed", connection -> {
                    var request = MetadataRequest.Builder.allTopics().build(ApiKeys.METADATA.latestVersion());
                    ByteBuffer full = request.serializeWithHeader(
                            new RequestHeader(ApiKeys.METADATA, request.version(), KafkaTestConnection.CLIENT_ID, 1));
                    connection.writeFrame(Arrays.copyOf(full.array(), full.remaining() - 1));
                }),
                new BadInput("a negative length", "negative_size", connection -> connection.writeInt(-1)),
                new BadInput(
                        "a length over maxFrameBytes",
                        "oversized",
                        connection -> connection.writeInt(MAX_FRAME_BYTES + 1)),
                new BadInput(
                        "an HTTP request (its first four bytes, 'GET ', read as a length)",
                        "oversized",
                        connection -> connection.write("GET ".getBytes(StandardCharsets.US_ASCII))),
                new BadInput("a frame cut short by the client closing", "truncated", connection -> {
                    connection.writeInt(100);
                    connection.write(filled(10, (byte) 1));
                    connection.shutdownOutput();
                }),
                new BadInput("a length cut short by the client closing", "truncated", connection -> {
                    connection.write(new byte[] {0, 0});
                    connection.shutdownOutput();
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void badBytesCloseTheirConnectionAreCountedByReasonAndLeaveOtherConnectionsServed(BadInput input) throws Exception {
        var registry = new SimpleMeterRegistry();
        var config = ProtocolServerConfig.defaults("test", "127.0.0.1", 0).withMaxFrameBytes(MAX_FRAME_BYTES);
        try (var server = start(
                        config,
                        registry,
                        TestHandlers.handler(ApiKeys.DESCRIBE_CLUSTER, 0, 2, TestHandlers::describeClusterOk));
                var bystander = KafkaTestConnection.open(server.port())) {
            assertThat(Errors.forCode(bystander.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);

            try (var offender = KafkaTestConnection.open(server.port())) {
                input.writer().writeTo(offender);

                assertThat(offender.closedByServer())
                        .as("end of stream on the offending connection")
                        .isTrue();
            }

            eventually()
                    .untilAsserted(() -> assertThat(
                                    count(registry, "tributary.protocol.frames.rejected", "reason", input.reason()))
                            .isEqualTo(1.0));
            assertThat(registry.find("tributary.protocol.frames.rejected").counters())
                    .filteredOn(
                            counter -> !input.reason().equals(counter.getId().getTag("reason")))
                    .allSatisfy(counter -> assertThat(counter.count()).isZero());
            assertThat(Errors.forCode(bystander.apiVersions().data().errorCode()))
                    .isEqualTo(Errors.NONE);
            var describe = new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build((short) 2);
            assertThat(bystander
                            .roundTrip(describe, DescribeClusterResponse.class)
                            .data()
                            .errorCode())
                    .isEqualTo(Errors.NONE.code());
        }
    }

    /** A request header (v2) with this API key and version, then an empty DescribeCluster body. */
    private static ByteBuffer headerBytes(short apiKey, short version) {
        var header = new RequestHeaderData()
                .setRequestApiKey(apiKey)
                .setRequestApiVersion(version)
                .setCorrelationId(1)
                .setClientId(KafkaTestConnection.CLIENT_ID);
        return RequestUtils.serialize(
                header, (short) 2, new DescribeClusterRequestData(), ApiKeys.DESCRIBE_CLUSTER.latestVersion());
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}
