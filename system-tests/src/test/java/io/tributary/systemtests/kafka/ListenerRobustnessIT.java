package io.tributary.systemtests.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.common.testing.KafkaTestConnection;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

/**
 * Differential: bad bytes on a broker's Kafka listener, over raw sockets: an oversized frame, a
 * negative frame length, an unknown API key, an unsupported version, garbage after a valid header,
 * a frame cut short. What the server does with the bad bytes (closes the connection, or answers,
 * and with which error) and whether a second connection is then served as before (ApiVersions and
 * Metadata answered, every live broker listed) is written down on each target and must be exactly
 * what the Apache Kafka broker does ({@link Differential}): not "an error or a close" on every
 * target, but the same one as Kafka.
 */
@OnSharedTargets
class ListenerRobustnessIT {

    /** How the server ended the exchange with the bad bytes. */
    enum Reaction {
        CLOSED,
        ANSWERED
    }

    @Test
    void anOversizedFrameMeetsKafkasReaction() {
        assertReactionIsKafkas(-1, connection -> {
            connection.writeInt(Integer.MAX_VALUE);
            write(connection, new byte[1024]);
        });
    }

    @Test
    void aNegativeFrameLengthMeetsKafkasReaction() {
        assertReactionIsKafkas(-1, connection -> {
            connection.writeInt(-5);
            write(connection, new byte[16]);
        });
    }

    @Test
    void anUnknownApiKeyMeetsKafkasReaction() {
        // No schema exists for an unknown API's response: closing is the only answer Kafka can give.
        assertReactionIsKafkas(7, connection -> connection.writeFrame(header((short) 9999, (short) 0, 7, false)));
    }

    @Test
    void anUnsupportedVersionOfAnOrdinaryApiMeetsKafkasReaction() {
        assertReactionIsKafkas(
                8,
                connection -> connection.writeFrame(
                        concat(header(ApiKeys.METADATA.id, (short) 999, 8, true), new byte[] {1, 0, 0, 0})));
    }

    @Test
    void apiVersionsAtAnUnsupportedVersionIsAnsweredAsKafkaAnswersIt() {
        Differential.assertSameOutcome((target, outcome) -> {
            try (KafkaTestConnection connection =
                    KafkaTestConnection.open(target.ports().getFirst())) {
                // ApiVersions v999 with a v3+ style body: client software name and version, no tags.
                byte[] body = concat(compactString("systest"), compactString("1.0"), new byte[] {0});
                connection.writeFrame(concat(header(ApiKeys.API_VERSIONS.id, (short) 999, 9, true), body));

                // The answer is an ApiVersions response at v0 (header v0): correlation id, error code.
                ByteBuffer frame = connection.readFrame();
                outcome.add("correlation id", frame.getInt());
                outcome.add("error", Errors.forCode(frame.getShort()));
            }
            assertStillServing(target, outcome);
        });
    }

    @Test
    void garbageAfterAValidHeaderMeetsKafkasReaction() {
        byte[] garbage = new byte[64];
        Arrays.fill(garbage, (byte) 0xff);
        assertReactionIsKafkas(
                10,
                connection -> connection.writeFrame(
                        concat(header(ApiKeys.METADATA.id, ApiKeys.METADATA.latestVersion(), 10, true), garbage)));
    }

    @Test
    void aFrameCutShortByTheClientMeetsKafkasReactionAndDisturbsNoOne() {
        assertReactionIsKafkas(-1, connection -> {
            connection.writeInt(100);
            write(connection, new byte[10]);
            connection.shutdownOutput();
        });
    }

    /** Bad bytes sent on a new connection. */
    @FunctionalInterface
    interface BadBytes {
        void send(KafkaTestConnection connection) throws IOException;
    }

    /**
     * Sends {@code bad} on a new connection to each target's first broker, writes down the
     * server's reaction (a frame answering {@code correlationId}, or a close) and whether a second
     * connection is then served, and requires every target's to be Kafka's.
     */
    private static void assertReactionIsKafkas(int correlationId, BadBytes bad) {
        Differential.assertSameOutcome((target, outcome) -> {
            try (KafkaTestConnection connection =
                    KafkaTestConnection.open(target.ports().getFirst())) {
                bad.send(connection);
                outcome.add("reaction", reaction(connection, correlationId));
            }
            assertStillServing(target, outcome);
        });
    }

    /** A new connection is served: ApiVersions without error, and Metadata with every live broker. */
    private static void assertStillServing(KafkaTarget target, Differential.Outcome outcome) throws IOException {
        try (KafkaTestConnection connection =
                KafkaTestConnection.open(target.ports().getFirst())) {
            ApiVersionsResponse versions = connection.apiVersions();
            outcome.add(
                    "a new connection's ApiVersions",
                    Errors.forCode(versions.data().errorCode()));
            var metadataRange = versions.data().apiKeys().find(ApiKeys.METADATA.id);
            assertThat(metadataRange)
                    .as("Metadata in the ApiVersions answer of %s", target)
                    .isNotNull();
            short metadataVersion = (short) Math.min(metadataRange.maxVersion(), ApiKeys.METADATA.latestVersion());
            MetadataResponse metadata = connection.roundTrip(
                    MetadataRequest.Builder.allTopics().build(metadataVersion), MetadataResponse.class);
            outcome.add(
                    "its Metadata lists every live broker", metadata.brokers().size() == target.brokerCount());
        }
    }

    /**
     * Reads what the server does next: {@code CLOSED} on end of stream or a reset, {@code ANSWERED}
     * when a response frame arrives (with whether it carries {@code correlationId}).
     */
    private static String reaction(KafkaTestConnection connection, int correlationId) throws IOException {
        try {
            ByteBuffer frame = connection.readFrame();
            int answered = frame.getInt();
            return Reaction.ANSWERED
                    + (answered == correlationId
                            ? ""
                            : " with correlation id " + answered + " instead of " + correlationId);
        } catch (EOFException closed) {
            return Reaction.CLOSED.name();
        } catch (SocketException e) {
            if (String.valueOf(e.getMessage()).contains("reset")) {
                return Reaction.CLOSED.name();
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
