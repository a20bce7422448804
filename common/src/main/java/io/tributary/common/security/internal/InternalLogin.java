package io.tributary.common.security.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;

/**
 * The SCRAM user and password one of Tributary's processes logs in with on another's Kafka
 * listener ({@link InternalUsers}). The password is derived from a key ({@link #derive}), so the
 * coordinators, which hold the cluster secret, can write the credential without being told it.
 *
 * @param user the SCRAM user name
 * @param password the password (never logged: {@link #toString} leaves it out)
 */
public record InternalLogin(String user, String password) {

    /** The message a login password is the HMAC of. */
    static final String PASSWORD_LABEL = "tributary-kafka-login";

    public InternalLogin {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
    }

    /**
     * The login of {@code user} whose password is {@code base64(HMAC-SHA256(key,
     * "tributary-kafka-login"))} (standard base64 with padding, 44 characters).
     */
    static InternalLogin derive(String user, byte[] key) {
        byte[] mac = ClusterSecret.hmac(key, PASSWORD_LABEL.getBytes(StandardCharsets.UTF_8));
        return new InternalLogin(user, Base64.getEncoder().encodeToString(mac));
    }

    /**
     * The kafka-clients settings that log a client in as this user on a {@code SASL_PLAINTEXT}
     * listener with SCRAM-SHA-512 ({@code security.protocol}, {@code sasl.mechanism}, {@code
     * sasl.jaas.config}).
     */
    public Map<String, String> kafkaClientProperties() {
        return Map.of(
                "security.protocol",
                "SASL_PLAINTEXT",
                "sasl.mechanism",
                ScramSocketLogin.MECHANISM,
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
    }

    @Override
    public String toString() {
        return "InternalLogin[user=" + user + ", password redacted]";
    }
}
