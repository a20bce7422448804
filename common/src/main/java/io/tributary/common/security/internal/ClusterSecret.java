package io.tributary.common.security.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster's internal secret: the coordinators hold it and derive from it the key of every
 * broker ({@link #brokerKey}); brokers hold it, or only their own key.
 *
 * <p>The secret file holds the secret as text: at least {@value #MIN_LENGTH} bytes after trailing
 * line breaks and spaces are dropped (for example 32 random bytes in base64, as {@code openssl rand
 * -base64 32} writes them). The bytes of the text are the secret; nothing is decoded.
 *
 * <p>A broker's key is {@code HMAC-SHA256(key = the secret's bytes, message = "tributary-broker-" +
 * id)}, the id in decimal ASCII: 32 bytes, so an operator can derive it without Tributary ({@code
 * printf tributary-broker-3 | openssl dgst -sha256 -mac HMAC -macopt key:"$(cat secret)" -binary |
 * base64}) and give each broker only its own key ({@link BrokerKey#read}).
 *
 * <p>Thread-safety: immutable.
 */
public final class ClusterSecret {

    /** The shortest secret accepted, in bytes: 256 bits of a base64 text carry at least 192 bits of entropy. */
    public static final int MIN_LENGTH = 32;

    /** The prefix of the message a broker's key is derived from. */
    static final String BROKER_KEY_LABEL = "tributary-broker-";

    private final byte[] secret;

    private ClusterSecret(byte[] secret) {
        if (secret.length < MIN_LENGTH) {
            throw new IllegalArgumentException(
                    "the cluster secret must be at least %d bytes, got %d".formatted(MIN_LENGTH, secret.length));
        }
        this.secret = secret;
    }

    /** The secret of {@code text}'s bytes (UTF-8), trailing line breaks and spaces dropped. */
    public static ClusterSecret of(String text) {
        return new ClusterSecret(text.strip().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads the secret from {@code file}.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or is too short
     */
    public static ClusterSecret read(Path file) {
        Objects.requireNonNull(file, "file");
        try {
            return of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the cluster secret file " + file + ": " + e, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the cluster secret file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Broker {@code brokerId}'s key. */
    public BrokerKey brokerKey(int brokerId) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("a broker id is 0 or more, got " + brokerId);
        }
        return new BrokerKey(brokerId, hmac(secret, BROKER_KEY_LABEL + brokerId));
    }

    /**
     * The SCRAM login of the coordinators on the brokers' Kafka listeners: user {@code
     * tributary-coordinator}, password {@code base64(HMAC-SHA256(K, "tributary-kafka-login"))}
     * where {@code K = HMAC-SHA256(the secret's bytes, "tributary-coordinator")} (as a broker's
     * key is derived, with the coordinators' user name as the message).
     */
    public InternalLogin coordinatorLogin() {
        return InternalLogin.derive(InternalUsers.COORDINATOR, hmac(secret, InternalUsers.COORDINATOR));
    }

    static byte[] hmac(byte[] key, String message) {
        return hmac(key, message.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    @Override
    public String toString() {
        return "ClusterSecret[" + secret.length + " bytes]";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClusterSecret s && java.security.MessageDigest.isEqual(secret, s.secret);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(secret);
    }
}
