package io.tributary.gateway.idempotency;

import io.tributary.gateway.problem.ProblemException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * A validated {@code Idempotency-Key} and the topic it is scoped to. The key is the header's value
 * verbatim: 1 to {@link #MAX_LENGTH} characters, each visible ASCII ({@code 0x21}..{@code 0x7E}: no
 * spaces, no control characters); a UUID is the usual choice. Keys are scoped by topic: the same key
 * on another topic is another key. Within a topic, both produce paths share the key (the request
 * digest tells them apart: reusing a key on the other path is 422).
 *
 * @param topic the topic of the request
 * @param key the header's value
 */
public record IdempotencyKey(String topic, String key) {

    /** The longest key accepted (the IETF draft sets no bound; clients send UUIDs). */
    public static final int MAX_LENGTH = 255;

    /** The header's name. */
    public static final String HEADER = "Idempotency-Key";

    /** The key in {@code header}; 400 {@code invalid-parameter} naming the header when it is malformed. */
    public static IdempotencyKey parse(String topic, String header) {
        if (header.isEmpty() || header.length() > MAX_LENGTH) {
            throw ProblemException.invalidParameter(
                    HEADER, "%s must have 1 to %d characters, got %d.".formatted(HEADER, MAX_LENGTH, header.length()));
        }
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw ProblemException.invalidParameter(
                        HEADER,
                        "%s may hold only visible ASCII characters (no spaces); character %d is not one."
                                .formatted(HEADER, i + 1));
            }
        }
        return new IdempotencyKey(topic, header);
    }

    /** The Kafka key of this key's records in the idempotency log: UTF-8 of {@code <topic>/<key>}. */
    public byte[] recordKey() {
        return (topic + "/" + key).getBytes(StandardCharsets.UTF_8);
    }

    /** The idempotency log's partition for this key: Kafka's default partitioner on {@link #recordKey}. */
    public int partition(int partitions) {
        return Utils.toPositive(Utils.murmur2(recordKey())) % partitions;
    }
}
