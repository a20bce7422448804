package io.tributary.common.security.sasl;

import io.tributary.common.security.oauth.JwtValidator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A SASL listener's settings.
 *
 * @param enabledMechanisms the mechanisms clients may choose, in the order SaslHandshake lists them
 *     when refusing another (Kafka's {@code sasl.enabled.mechanisms}); each one of {@link
 *     #SUPPORTED}
 * @param credentials where PLAIN and SCRAM find credentials
 * @param oauthBearer how OAUTHBEARER tokens are validated; present exactly when OAUTHBEARER is
 *     enabled
 * @param connectionsMaxReauth per mechanism, Kafka's {@code connections.max.reauth.ms}: the longest
 *     a session lasts before the client must re-authenticate (KIP-368); a mechanism left out, or
 *     zero, sets no bound (an OAUTHBEARER session still ends when its token expires)
 */
public record SaslSettings(
        List<String> enabledMechanisms,
        CredentialLookup credentials,
        Optional<JwtValidator> oauthBearer,
        Map<String, Duration> connectionsMaxReauth) {

    public static final String OAUTHBEARER = "OAUTHBEARER";

    /** The mechanisms Tributary implements. */
    public static final Set<String> SUPPORTED = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", OAUTHBEARER);

    public SaslSettings {
        enabledMechanisms = List.copyOf(enabledMechanisms);
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(oauthBearer, "oauthBearer");
        connectionsMaxReauth = Map.copyOf(connectionsMaxReauth);
        if (enabledMechanisms.isEmpty()) {
            throw new IllegalArgumentException("a SASL listener needs at least one mechanism");
        }
        for (String mechanism : enabledMechanisms) {
            if (!SUPPORTED.contains(mechanism)) {
                throw new IllegalArgumentException(
                        "SASL mechanism " + mechanism + " is not supported; supported: " + SUPPORTED);
            }
        }
        if (enabledMechanisms.contains(OAUTHBEARER) != oauthBearer.isPresent()) {
            throw new IllegalArgumentException(
                    "a token validator is needed exactly when OAUTHBEARER is enabled (it needs a JWKS)");
        }
        connectionsMaxReauth.forEach((mechanism, max) -> {
            if (max.isNegative()) {
                throw new IllegalArgumentException("connections.max.reauth.ms of " + mechanism + " is negative");
            }
        });
    }

    /** PLAIN and SCRAM only, no re-authentication bound. */
    public SaslSettings(List<String> enabledMechanisms, CredentialLookup credentials) {
        this(enabledMechanisms, credentials, Optional.empty(), Map.of());
    }

    /** The re-authentication bound of {@code mechanism}; zero for none. */
    public Duration maxReauth(String mechanism) {
        return connectionsMaxReauth.getOrDefault(mechanism, Duration.ZERO);
    }
}
