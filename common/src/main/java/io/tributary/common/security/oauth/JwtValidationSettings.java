package io.tributary.common.security.oauth;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a broker requires of an OAUTHBEARER token, with Kafka's names (KIP-768).
 *
 * @param expectedIssuer {@code sasl.oauthbearer.expected.issuer}: the {@code iss} a token must
 *     carry; empty only with {@code sasl.oauthbearer.allow.unverified.issuer=true}
 * @param expectedAudiences {@code sasl.oauthbearer.expected.audience}: a token's {@code aud} must
 *     name one of them; empty only with {@code sasl.oauthbearer.allow.unverified.audience=true}
 * @param clockSkew {@code sasl.oauthbearer.clock.skew.seconds}: the leeway on {@code exp} and
 *     {@code nbf}
 * @param subClaimName {@code sasl.oauthbearer.sub.claim.name}: the claim naming the principal
 * @param scopeClaimName {@code sasl.oauthbearer.scope.claim.name}: the claim holding the scopes
 */
public record JwtValidationSettings(
        Optional<String> expectedIssuer,
        Set<String> expectedAudiences,
        Duration clockSkew,
        String subClaimName,
        String scopeClaimName) {

    /** Kafka's default {@code sasl.oauthbearer.clock.skew.seconds}. */
    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(30);

    public static final String DEFAULT_SUB_CLAIM = "sub";
    public static final String DEFAULT_SCOPE_CLAIM = "scope";

    public JwtValidationSettings {
        Objects.requireNonNull(expectedIssuer, "expectedIssuer");
        expectedAudiences = Set.copyOf(expectedAudiences);
        if (clockSkew.isNegative()) {
            throw new IllegalArgumentException("the clock skew is negative: " + clockSkew);
        }
        if (subClaimName.isBlank() || scopeClaimName.isBlank()) {
            throw new IllegalArgumentException("the sub and scope claim names must not be blank");
        }
    }
}
