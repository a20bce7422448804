package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.KafkaTestConnection;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad bytes on a broker's Kafka listener, over raw sockets: an oversized frame, a negative frame
 * length, an unknown API key, an unsupported version, garbage after a valid header. Each time the
 * connection gets an error response or is closed (Kafka closes; for ApiVersions at a version it
 * does not know it answers UNSUPPORTED_VERSION, which clients rely on to fall back), and then a
 * second connection is served as before: ApiVersions and Metadata are answered. Run against the
 * real Kafka broker too, which proves that the expectations are Kafka's.
 */
@ExtendWith(KafkaTargets.class)
class ListenerRobustnessIT {

    /** How the server ended the exchange with the bad bytes. */
    enum Reaction {
        CLOSED,
        ANSWERED
    }

    static List<KafkaTargets.Kind> targets() {
        return KafkaTargets.enabledList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void anOversizedFrameClosesTheConnection(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeInt(Integer.MAX_VALUE);
            write(connection, new byte[1024]);

            assertThat(reaction(connection, -1)).isEqualTo(Reaction.CLOSED);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void aNegativeFrameLengthClosesTheConnection(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeInt(-5);
            write(connection, new byte[16]);

            assertThat(reaction(connection, -1)).isEqualTo(Reaction.CLOSED);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void anUnknownApiKeyClosesTheConnection(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeFrame(header((short) 9999, (short) 0, 7, false));

            // No schema exists for an unknown API's response: closing is the only answer.
            assertThat(reaction(connection, 7)).isEqualTo(Reaction.CLOSED);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void anUnsupportedVersionOfAnOrdinaryApiGetsAnErrorOrAClose(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeFrame(concat(header(ApiKeys.METADATA.id, (short) 999, 8, true), new byte[] {1, 0, 0, 0}));

            assertThat(reaction(connection, 8)).isIn(Reaction.CLOSED, Reaction.ANSWERED);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void apiVersionsAtAnUnsupportedVersionIsAnsweredWithUnsupportedVersion(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            // ApiVersions v999 with a v3+ style body: client software name and version, no tags.
            byte[] body = concat(compactString("systest"), compactString("1.0"), new byte[] {0});
            connection.writeFrame(concat(header(ApiKeys.API_VERSIONS.id, (short) 999, 9, true), body));

            // The answer is an ApiVersions response at v0 (header v0): correlation id, error code.
            ByteBuffer frame = connection.readFrame();
            assertThat(frame.getInt()).as("correlation id").isEqualTo(9);
            assertThat(Errors.forCode(frame.getShort())).isEqualTo(Errors.UNSUPPORTED_VERSION);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void garbageAfterAValidHeaderGetsAnErrorOrAClose(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        short version = ApiKeys.METADATA.latestVersion();
        byte[] garbage = new byte[64];
        Arrays.fill(garbage, (byte) 0xff);
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeFrame(concat(header(ApiKeys.METADATA.id, version, 10, true), garbage));

            assertThat(reaction(connection, 10)).isIn(Reaction.CLOSED, Reaction.ANSWERED);
        }
        assertStillServing(kind);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void aFrameCutShortByTheClientDoesNotDisturbOthers(KafkaTargets.Kind kind) throws Exception {
        int port = KafkaTargets.get(kind).ports().getFirst();
        try (KafkaTestConnection connection = KafkaTestConnection.open(port)) {
            connection.writeInt(100);
            write(connection, new byte[10]);
            connection.shutdownOutput();

            assertThat(reaction(connection, -1)).isEqualTo(Reaction.CLOSED);
        }
        assertStillServing(kind);
    }

    /** A new connection is served: ApiVersions without error, and Metadata with every broker. */
    private static void assertStillServing(KafkaTargets.Kind kind) throws IOException {
        KafkaTarget target = KafkaTargets.get(kind);
        try (KafkaTestConnection connection =
                KafkaTestConnection.open(target.ports().getFirst())) {
            ApiVersionsResponse versions = connection.apiVersions();
            assertThat(Errors.forCode(versions.data().errorCode())).isEqualTo(Errors.NONE);
            var metadataRange = versions.data().apiKeys().find(ApiKeys.METADATA.id);
            assertThat(metadataRange)
                    .as("Metadata in the ApiVersions answer of %s", target)
                    .isNotNull();
            short metadataVersion = (short) Math.min(metadataRange.maxVersion(), ApiKeys.METADATA.latestVersion());
            MetadataResponse metadata = connection.roundTrip(
                    MetadataRequest.Builder.allTopics().build(metadataVersion), MetadataResponse.class);
            assertThat(metadata.brokers()).hasSize(target.brokerCount());
        }
    }

    /**
     * Reads what the server does next: {@link Reaction#CLOSED} on end of stream or a reset, {@link
     * Reaction#ANSWERED} when a response frame with {@code correlationId} arrives.
     */
    private static Reaction reaction(KafkaTestConnection connection, int correlationId) throws IOException {
        try {
            ByteBuffer frame = connection.readFrame();
            assertThat(frame.getInt()).as("correlation id of the answer").isEqualTo(correlationId);
            return Reaction.ANSWERED;
        } catch (EOFException closed) {
            return Reaction.CLOSED;
        } catch (SocketException e) {
            if (String.valueOf(e.getMessage()).contains("reset")) {
                return Reaction.CLOSED;
            }
            throw e;
        }
    }

    /** Writes bytes; a server that already closed may reset the connection, which is fine here. */
    private static void write(KafkaTestConnection connection, byte[] bytes) {
        try {
            connection.write(bytes);
        } catch (IOException closedAlready) {
            // the reaction is read next
        }
    }

    /** A request header: API key, version, correlation id, client id, and (v2) no tagged fields. */
    private static byte[] header(short apiKey, short version, int correlationId, boolean flexible) {
        byte[] clientId = KafkaTestConnection.CLIENT_ID.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + 4 + 2 + clientId.length + (flexible ? 1 : 0));
        buffer.putShort(apiKey).putShort(version).putInt(correlationId);
        buffer.putShort((short) clientId.length).put(clientId);
        if (flexible) {
            buffer.put((byte) 0);
        }
        return buffer.array();
    }

    /** A compact string: unsigned varint of length + 1 (short strings: one byte), then UTF-8. */
    private static byte[] compactString(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return concat(new byte[] {(byte) (bytes.length + 1)}, bytes);
    }

    private static byte[] concat(byte[]... parts) {
        int size = 0;
        for (byte[] part : parts) {
            size += part.length;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (byte[] part : parts) {
            buffer.put(part);
        }
        return buffer.array();
    }
}
