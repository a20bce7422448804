package io.tributary.common.security.sasl;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A SASL listener's settings.
 *
 * @param enabledMechanisms the mechanisms clients may choose, in the order SaslHandshake lists them
 *     when refusing another (Kafka's {@code sasl.enabled.mechanisms}); each one of {@link
 *     #SUPPORTED}
 * @param credentials where the mechanisms find credentials
 */
public record SaslSettings(List<String> enabledMechanisms, CredentialLookup credentials) {

    /** The mechanisms Tributary implements. */
    public static final Set<String> SUPPORTED = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    public SaslSettings {
        enabledMechanisms = List.copyOf(enabledMechanisms);
        Objects.requireNonNull(credentials, "credentials");
        if (enabledMechanisms.isEmpty()) {
            throw new IllegalArgumentException("a SASL listener needs at least one mechanism");
        }
        for (String mechanism : enabledMechanisms) {
            if (!SUPPORTED.contains(mechanism)) {
                throw new IllegalArgumentException(
                        "SASL mechanism " + mechanism + " is not supported; supported: " + SUPPORTED);
            }
        }
    }
}
