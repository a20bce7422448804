package io.tributary.common.security.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Objects;

/**
 * One broker's internal key ({@link ClusterSecret#brokerKey}): it signs the broker's control-plane
 * calls. 32 bytes; written in a key file as base64 (one line).
 *
 * <p>Thread-safety: immutable.
 */
public final class BrokerKey {

    /** The length of a key in bytes (HMAC-SHA256's output). */
    public static final int LENGTH = 32;

    private final int brokerId;
    private final byte[] key;

    BrokerKey(int brokerId, byte[] key) {
        if (key.length != LENGTH) {
            throw new IllegalArgumentException("a broker key is %d bytes, got %d".formatted(LENGTH, key.length));
        }
        this.brokerId = brokerId;
        this.key = key.clone();
    }

    /**
     * Broker {@code brokerId}'s key from a key file (base64 of the 32 bytes, surrounding white space
     * ignored).
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or holds no key
     */
    public static BrokerKey read(int brokerId, Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the broker key file " + file + ": " + e, e);
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the broker key file " + file + " does not hold base64", e);
        }
        if (key.length != LENGTH) {
            throw new IllegalArgumentException(
                    "the broker key file %s holds %d bytes; a key is %d".formatted(file, key.length, LENGTH));
        }
        return new BrokerKey(brokerId, key);
    }

    /** The broker this key belongs to. */
    public int brokerId() {
        return brokerId;
    }

    /** The key as a key file holds it (base64). */
    public String encoded() {
        return Base64.getEncoder().encodeToString(key);
    }

    /**
     * The SCRAM login this broker uses on other brokers' and the coordinators' Kafka listeners:
     * user {@code tributary-broker-<id>}, password {@code base64(HMAC-SHA256(this key,
     * "tributary-kafka-login"))} ({@link InternalLogin#derive}).
     */
    public InternalLogin kafkaLogin() {
        return InternalLogin.derive(InternalUsers.broker(brokerId), key);
    }

    /** HMAC-SHA256 of {@code message} under this key. */
    byte[] mac(byte[] message) {
        return ClusterSecret.hmac(key, message);
    }

    @Override
    public String toString() {
        return "BrokerKey[broker " + brokerId + "]";
    }
}
